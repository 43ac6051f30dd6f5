// N-queens by prefix, like nqueens.cu, but the search is an explicit
// depth-first walk over per-thread local arrays (one entry per row from
// row 2 on) instead of recursion. Entry `top` describes row 2 + top: the
// columns and diagonals taken above it and the columns still to try.
#define MAX_N 12

__global__ void nqueens_stack(int n, int *counts, int *total)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n * n) {
        return;
    }
    int c0 = p / n;
    int c1 = p % n;
    int gap = c0 - c1;
    int count = 0;
    if (gap > 1 || gap < -1) {
        unsigned all = (1 << n) - 1;
        unsigned cols[MAX_N];
        unsigned diag1[MAX_N];
        unsigned diag2[MAX_N];
        unsigned open[MAX_N];
        unsigned b0 = 1 << c0;
        unsigned b1 = 1 << c1;
        int top = 0;
        cols[0] = b0 | b1;
        diag1[0] = ((b0 << 1) | b1) << 1;
        diag2[0] = ((b0 >> 1) | b1) >> 1;
        open[0] = all & ~(cols[0] | diag1[0] | diag2[0]);
        while (top >= 0) {
            unsigned choices = open[top];
            if (choices == 0) {
                top--;
                continue;
            }
            unsigned bit = choices & (0 - choices);
            open[top] = choices ^ bit;
            if (top + 3 == n) {
                count++;
                continue;
            }
            unsigned c = cols[top] | bit;
            unsigned d1 = (diag1[top] | bit) << 1;
            unsigned d2 = (diag2[top] | bit) >> 1;
            top++;
            cols[top] = c;
            diag1[top] = d1;
            diag2[top] = d2;
            open[top] = all & ~(c | d1 | d2);
        }
    }
    counts[p] = count;
    atomicAdd(&total[0], count);
}
