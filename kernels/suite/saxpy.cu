// Fixed-point saxpy: y[i] = (a * x[i]) >> FRAC + y[i], with `a` in Q8
// (256 = 1.0). A grid-stride loop: lanes past the end of the data leave
// the loop one trip earlier than the others.
#define FRAC 8

__global__ void saxpy(int a, int *x, int *y, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = ((a * x[i]) >> FRAC) + y[i];
    }
}
