"""HW9 - Max Fischer"""
import numpy as np

# Q1
def lora_forward(x, W, A, B, alpha):
    return x @ W + alpha * x @ A @ B


# Q2
def quantize_int8(w):
    scale = np.max(np.abs(w)) / 255
    q = np.round(w / scale).astype(np.int8)
    return q, scale


if __name__ == "__main__":
    # Q3: 32*2*16*(4096+4096) = 8388608 trainable; adapter is 1/128 of W
    print(32 * 2 * 16 * (4096 + 4096))
    # Q4: (a) 28 GB in fp16 (4 bytes each)   (b) 3.5 GB
    # Q5: (a) 0.508/255 = 0.00199   (b) 62   (c) 0.001
    # Q6: (a) N = 2*r*d   (b) s = 2*m/(2**b - 1)
    # Q7: (a) B   (b) A B D
    # Q8: (a) so the model starts like the pretrained one  (b) merged into W
    # Q9: outliers
    pass
