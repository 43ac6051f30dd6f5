// Bitonic sort of data[0..n) in ascending order by one block, in shared
// memory. n is padded to the next power of two with PAD (the largest
// int), so padding sorts to the end and is never written back. Each
// thread handles the pairs (i, i ^ j) with i < i ^ j for its strided i,
// so no two threads touch the same element between barriers.
#define MAX_N 1024
#define PAD 0x7fffffff

__global__ void bitonic(int *data, int n)
{
    __shared__ int keys[MAX_N];
    int t = threadIdx.x;
    int size = 1;
    while (size < n) {
        size <<= 1;
    }
    for (int i = t; i < size; i += blockDim.x) {
        keys[i] = i < n ? data[i] : PAD;
    }
    __syncthreads();
    for (int k = 2; k <= size; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = t; i < size; i += blockDim.x) {
                int partner = i ^ j;
                if (partner > i) {
                    int a = keys[i];
                    int b = keys[partner];
                    bool ascending = (i & k) == 0;
                    if (ascending ? a > b : a < b) {
                        keys[i] = b;
                        keys[partner] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
    for (int i = t; i < n; i += blockDim.x) {
        data[i] = keys[i];
    }
}
