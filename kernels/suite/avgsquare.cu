// avgSquare from Sampaio (2013), Fig. 2.1, in integer arithmetic: thread
// tid < c averages column tid of the c x c matrix m (row-major) into v[tid]
// (the sum divided by the count, truncated towards zero). Every active
// thread loops c times: `i < N` is uniform although i and N depend on tid
// (N - i does not), which the affine divergence analysis proves.
__global__ void avgSquare(int *m, int *v, int c)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < c) {
        int d = 0;
        int sum = 0;
        int N = tid + c * c;
        for (int i = tid; i < N; i += c) {
            sum += m[i];
            d += 1;
        }
        v[tid] = sum / d;
    }
}
