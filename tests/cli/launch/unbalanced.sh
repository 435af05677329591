vllm serve "unbalanced
