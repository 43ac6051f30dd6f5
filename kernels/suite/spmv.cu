// Sparse matrix-vector product y = A x, A in CSR form with 16-bit values:
// one thread per row, so each lane's trip count is its row's length.
__global__ void spmv(int *row_ptr, int *col_idx, short *vals, int *x, int *y, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        int sum = 0;
        for (int e = row_ptr[r]; e < row_ptr[r + 1]; e++) {
            sum += vals[e] * x[col_idx[e]];
        }
        y[r] = sum;
    }
}
