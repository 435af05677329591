# vLLM's `vllm serve` CLI page, "Configure memory and context length".
vllm serve mistralai/Mistral-7B-v0.1 \
  --gpu-memory-utilization 0.95 \
  --max-model-len 8192
