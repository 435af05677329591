model=mistralai/Mistral-7B-v0.1
docker run --gpus all -e NUM_SHARD=2 ghcr.io/huggingface/text-generation-inference:3.3.5 --model-id $model --max-total-tokens 8192 --quantize awq
