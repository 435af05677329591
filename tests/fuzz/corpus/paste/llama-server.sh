# The example line (issue 33): -c over -np slots, a GGUF file name as preset and weights format.
./llama-server -m models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf \
  -c 32768 -ngl 99 -fa -np 4 -ctk q8_0 -ctv q8_0 --port 8080
