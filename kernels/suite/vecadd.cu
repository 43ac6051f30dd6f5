// c[i] = a[i] + b[i] for i < n, one thread per element.
// Divergence: only the bounds check; the tail of the last block idles.
__global__ void vecadd(int *a, int *b, int *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
