# Max Brenner, HW11
from collections import Counter


# ---- Question 1 ----
def bpe_merge(ids, pair, new_id):
    ids = list(ids)
    i = 0
    while i < len(ids) - 1:
        if ids[i] == pair[0] and ids[i + 1] == pair[1]:
            ids[i:i + 2] = [new_id]
        i += 1
    return ids


# ---- Question 2 ----
def count_pairs(ids):
    return Counter(zip(ids, ids[1:]))


# ---- Question 3 ----
# a) C = 6 N D ~ 3.6e21 FLOP
# b) ~ 140e9 tokens (20 per param)
# c) N ~ 7e10 params  (C = 120 N^2)

# ---- Question 4 ----
# a) per token: K and V, 32 layers, 8 kv heads, 128 dims, 4 bytes
#    = 2*32*8*128*4 = 262144 B
# b) x 8192 tokens = 2^31 B = 2.1 GB

# ---- Question 5 ----
# a) 38,597,376
# b) 1,048,576,000

# ---- Question 6 ----
# a) r = (N_1/N_2)^alpha
# b) 10^(-0.076) = 0.84, i.e. about 16% lower loss

# ---- Question 7 ----
# a) falls back to bytes: all 256 bytes are in the vocab, any text is bytes
# b) digits and letters get merged into tokens so the model can't see them
#    one by one; numbers are split inconsistently

# ---- Question 8 ----
# sliding window attention; int8 kv cache
