// Rodinia-style pathfinder: the cheapest path from the top row of a
// rows x cols grid of costs (wall) to each bottom cell, moving down to the
// same column or a neighbouring one. One block sweeps the rows; the
// current row of partial costs lives in shared memory, double-buffered,
// with a barrier after each row. result[c] is the cheapest cost ending in
// column c of the last row.
#define MAX_COLS 1024

__device__ int smaller(int a, int b)
{
    return a < b ? a : b;
}

__global__ void pathfinder(int *wall, int *result, int rows, int cols)
{
    __shared__ int cost[2][MAX_COLS];
    int t = threadIdx.x;
    for (int c = t; c < cols; c += blockDim.x) {
        cost[0][c] = wall[c];
    }
    __syncthreads();
    int src = 0;
    for (int r = 1; r < rows; r++) {
        for (int c = t; c < cols; c += blockDim.x) {
            int best = cost[src][c];
            if (c > 0) {
                best = smaller(best, cost[src][c - 1]);
            }
            if (c < cols - 1) {
                best = smaller(best, cost[src][c + 1]);
            }
            cost[1 - src][c] = wall[r * cols + c] + best;
        }
        src = 1 - src;
        __syncthreads();
    }
    for (int c = t; c < cols; c += blockDim.x) {
        result[c] = cost[src][c];
    }
}
