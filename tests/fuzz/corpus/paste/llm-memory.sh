llm-memory \
  --mode train \
  --framework hf \
  --model llama-3.1-8b \
  --batch 4 \
  --json
