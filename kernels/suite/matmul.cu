// C = A * B for an M x K matrix A and a K x N matrix B (row-major), tiled
// through shared memory with square 2-D blocks: blockDim.x == blockDim.y
// == T <= MAX_TILE. Block (bx, by) computes the T x T tile of C at rows
// by*T.., columns bx*T..; tiles past the matrix edges load zeros.
#define MAX_TILE 16

__global__ void matmul(int *A, int *B, int *C, int M, int N, int K)
{
    __shared__ int As[MAX_TILE][MAX_TILE];
    __shared__ int Bs[MAX_TILE][MAX_TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int T = blockDim.x;
    int row = blockIdx.y * T + ty;
    int col = blockIdx.x * T + tx;
    int acc = 0;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0;
        __syncthreads();
        for (int k = 0; k < T; k++) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}
