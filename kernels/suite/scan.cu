// Block-level inclusive prefix sum (Hillis-Steele, double-buffered in a
// 2-D shared array). Block b scans in[b*B .. b*B+B) into out, and writes
// its total to block_sums[b]. Elements past n count as 0 (and are not
// written).
#define MAX_BLOCK 256

__global__ void scan(int *in, int *out, int *block_sums, int n)
{
    __shared__ int buf[2][MAX_BLOCK];
    int t = threadIdx.x;
    int threads = blockDim.x;
    int i = blockIdx.x * blockDim.x + t;
    int src = 0;
    buf[0][t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < threads; offset *= 2) {
        int dst = 1 - src;
        if (t >= offset) {
            buf[dst][t] = buf[src][t] + buf[src][t - offset];
        } else {
            buf[dst][t] = buf[src][t];
        }
        __syncthreads();
        src = dst;
    }
    if (i < n) {
        out[i] = buf[src][t];
    }
    if (t == threads - 1) {
        block_sums[blockIdx.x] = buf[src][t];
    }
}
