// sumTriangle from Sampaio (2013), Fig. 2.1, in integer arithmetic: thread
// tid < c walks column tid of the c x c matrix m (row-major) down to the
// diagonal (tid + 1 cells) and sums the cells of odd rows; it stores the
// sum at v[d - 1], d being its trip count (so v[tid]). d is uniform inside
// the loop and divergent after it (the exit is divergent).
__global__ void sumTriangle(int *m, int *v, int c)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < c) {
        int d = 0;
        int sum = 0;
        int L = (tid + 1) * c;
        for (int i = tid; i < L; i += c) {
            if (d % 2) {
                sum += m[i];
            }
            d += 1;
        }
        v[d - 1] = sum;
    }
}
