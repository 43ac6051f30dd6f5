// Needleman-Wunsch global alignment score matrix, computed by one block
// along anti-diagonals with a barrier between diagonals.
// score is (la + 1) x (lb + 1), row-major; row 0 and column 0 hold the
// gap penalties; cell (i, j) = max(diagonal + sim[a[i-1]][b[j-1]],
// up - gap, left - gap). Sequences are bytes 0..3 (DNA), sim is a signed
// 4 x 4 byte matrix.

__device__ int larger(int a, int b)
{
    return a > b ? a : b;
}

__global__ void nw(unsigned char *seq_a, unsigned char *seq_b, signed char *sim, int *score, int la, int lb, int gap)
{
    int t = threadIdx.x;
    int w = lb + 1;
    for (int i = t; i <= la; i += blockDim.x) {
        score[i * w] = -i * gap;
    }
    for (int j = t; j <= lb; j += blockDim.x) {
        score[j] = -j * gap;
    }
    __syncthreads();
    for (int d = 2; d <= la + lb; d++) {
        int lo = d - lb > 1 ? d - lb : 1;
        int hi = d - 1 < la ? d - 1 : la;
        for (int i = lo + t; i <= hi; i += blockDim.x) {
            int j = d - i;
            int match = score[(i - 1) * w + j - 1] + sim[seq_a[i - 1] * 4 + seq_b[j - 1]];
            int up = score[(i - 1) * w + j] - gap;
            int left = score[i * w + j - 1] - gap;
            score[i * w + j] = larger(match, larger(up, left));
        }
        __syncthreads();
    }
}
