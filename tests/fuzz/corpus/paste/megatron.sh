python pretrain_gpt.py \
  --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --sequence-parallel \
  --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \
  --group-query-attention --num-query-groups 8 --seq-length 4096 --max-position-embeddings 8192 \
  --position-embedding-type rope --normalization RMSNorm --swiglu --disable-bias-linear \
  --untie-embeddings-and-output-weights --vocab-size 128256 \
  --micro-batch-size 1 --global-batch-size 64 --recompute-activations --use-distributed-optimizer --bf16 \
  --lr 3e-4 --train-iters 1000 --data-path my-corpus_text_document
