python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp 2 --context-length 32768 --mem-fraction-static 0.8 --chunked-prefill-size -1
