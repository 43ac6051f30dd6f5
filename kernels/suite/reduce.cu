// Sum of in[0..n): each thread sums a grid-stride slice, then each block
// reduces its threads' sums in shared memory with a tree of barriers.
// Thread 0 of each block writes the block's sum to partial[blockIdx.x]
// and adds it to total[0] with an atomic.
//
// Works for any block size up to MAX_BLOCK: the tree starts at the
// smallest power of two covering the block and skips missing partners.
#define MAX_BLOCK 256

__global__ void reduce(int *in, int *partial, int *total, int n)
{
    __shared__ int sums[MAX_BLOCK];
    int t = threadIdx.x;
    int threads = blockDim.x;
    int stride = blockDim.x * gridDim.x;
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += stride) {
        sum += in[i];
    }
    sums[t] = sum;
    __syncthreads();

    int width = 1;
    while (width < threads) {
        width <<= 1;
    }
    for (int s = width >> 1; s > 0; s >>= 1) {
        if (t < s && t + s < threads) {
            sums[t] += sums[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = sums[0];
        atomicAdd(&total[0], sums[0]);
    }
}
