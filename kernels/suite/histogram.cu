// Histogram of bytes into nbins bins (bin = value % nbins). Each block
// counts into a privatised shared-memory histogram with shared atomics,
// then merges its non-zero bins into hist with global atomics.
#define MAX_BINS 256

__global__ void histogram(unsigned char *data, unsigned *hist, int n, int nbins)
{
    __shared__ unsigned local[MAX_BINS];
    int t = threadIdx.x;
    for (int b = t; b < nbins; b += blockDim.x) {
        local[b] = 0;
    }
    __syncthreads();
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += stride) {
        int value = data[i];
        atomicAdd(&local[value % nbins], 1);
    }
    __syncthreads();
    for (int b = t; b < nbins; b += blockDim.x) {
        unsigned count = local[b];
        if (count != 0) {
            atomicAdd(&hist[b], count);
        }
    }
}
