# TRL's command line (trl sft, docs/source/clis.md and sft_trainer.md flags), with PEFT and 4-bit loading.
trl sft \
  --model_name_or_path Qwen/Qwen2.5-7B \
  --dataset_name trl-lib/Capybara \
  --per_device_train_batch_size 4 \
  --gradient_accumulation_steps 2 \
  --gradient_checkpointing \
  --max_length 2048 \
  --use_peft \
  --lora_r 16 \
  --lora_target_modules all-linear \
  --load_in_4bit \
  --bf16 \
  --output_dir Qwen2.5-7B-SFT
