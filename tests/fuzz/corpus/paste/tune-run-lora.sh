# torchtune's launcher with overrides (written for the test; keys of recipes/configs/llama3_1/8B_lora_single_device.yaml).
tune run lora_finetune_single_device --config llama3_1/8B_lora_single_device \
  model._component_=torchtune.models.llama3_1.lora_llama3_1_8b model.lora_rank=16 \
  "model.lora_attn_modules=['q_proj','k_proj','v_proj']" batch_size=4 gradient_accumulation_steps=2 \
  enable_activation_checkpointing=True tokenizer.max_seq_len=2048
