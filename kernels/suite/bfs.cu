// Breadth-first search from `source` over a CSR graph (row_ptr has
// nodes + 1 entries, col_idx the edge targets), level-synchronous, in one
// block that loops over levels with barriers. frontier[v] flags the nodes
// of the current level, next[v] those of the next one. A node is claimed
// with atomicMin on its distance: only the thread that lowers it from
// UNSEEN flags it, so the result does not depend on thread order.
// On exit dist[v] is the level of v, or -1 when v is unreachable, and
// frontier and next are all zero.
#define UNSEEN 0x7fffffff

__global__ void bfs(int *row_ptr, int *col_idx, int *dist, int *frontier, int *next, int nodes, int source)
{
    __shared__ int grew;
    int t = threadIdx.x;
    for (int v = t; v < nodes; v += blockDim.x) {
        dist[v] = v == source ? 0 : UNSEEN;
        frontier[v] = v == source;
        next[v] = 0;
    }
    if (t == 0) {
        grew = 1;
    }
    __syncthreads();
    int level = 0;
    while (grew != 0) {
        __syncthreads();
        if (t == 0) {
            grew = 0;
        }
        for (int v = t; v < nodes; v += blockDim.x) {
            if (frontier[v]) {
                for (int e = row_ptr[v]; e < row_ptr[v + 1]; e++) {
                    int u = col_idx[e];
                    if (atomicMin(&dist[u], level + 1) == UNSEEN) {
                        next[u] = 1;
                    }
                }
            }
        }
        __syncthreads();
        for (int v = t; v < nodes; v += blockDim.x) {
            int flag = next[v];
            frontier[v] = flag;
            next[v] = 0;
            if (flag) {
                atomicOr(&grew, 1);
            }
        }
        level++;
        __syncthreads();
    }
    for (int v = t; v < nodes; v += blockDim.x) {
        if (dist[v] == UNSEEN) {
            dist[v] = -1;
        }
    }
}
