// N-queens by prefix: thread p places the queens of rows 0 and 1 in
// columns p / n and p % n and counts the completions with a recursive
// __device__ function over bitmasks (columns and both diagonals taken).
// counts[p] gets the thread's count (0 for a conflicting prefix) and
// total[0] the sum over all prefixes: the number of solutions.
// Threads past n * n leave at once. Recursion depth: n - 1 calls.

__device__ int place(int n, int row, unsigned cols, unsigned diag1, unsigned diag2)
{
    if (row == n) {
        return 1;
    }
    int count = 0;
    unsigned all = (1 << n) - 1;
    unsigned open = all & ~(cols | diag1 | diag2);
    while (open != 0) {
        unsigned bit = open & (0 - open);
        open ^= bit;
        count += place(n, row + 1, cols | bit, (diag1 | bit) << 1, (diag2 | bit) >> 1);
    }
    return count;
}

__global__ void nqueens(int n, int *counts, int *total)
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
        unsigned b0 = 1 << c0;
        unsigned b1 = 1 << c1;
        count = place(n, 2, b0 | b1, ((b0 << 1) | b1) << 1, ((b0 >> 1) | b1) >> 1);
    }
    counts[p] = count;
    atomicAdd(&total[0], count);
}
