// Bulavintsev's two-level work queue benchmark (loop flattening study):
// an outer loop A with a fixed trip count (outer_iters) and an inner loop
// B over the current A element's b elements, whose number is per-lane
// data (items[tid * outer_iters + a]). In each A iteration exactly k lanes
// of every group of `group` consecutive threads (a warp, normally) get the
// "early exit" signal and leave B at once; which k is decided by a
// pseudo-random generator shared by the group. outer_work and inner_work
// set the cost of A's and B's own work, so studies can sweep the A/B
// weight ratio and k. out[tid] is a hash of all the work done, useful[tid]
// the number of B iterations that did work.
#define LCG_MUL 1103515245
#define LCG_ADD 12345

__global__ void workqueue(int *items, unsigned *out, int *useful, int outer_iters, int group, int k, int outer_work, int inner_work, unsigned seed)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = tid % group;
    unsigned state = seed ^ ((tid / group) * 0x9E3779B9);
    unsigned acc = tid;
    int done = 0;
    for (int a = 0; a < outer_iters; a++) {
        for (int w = 0; w < outer_work; w++) {
            acc = acc * 1664525 + 1013904223;
        }
        state = state * LCG_MUL + LCG_ADD;
        int first = (state >> 16) % group;
        bool early = (lane - first + group) % group < k;
        int count = items[tid * outer_iters + a];
        for (int b = 0; b < count; b++) {
            if (early) {
                break;
            }
            for (int w = 0; w < inner_work; w++) {
                acc = (acc ^ (acc >> 7)) * 31 + b;
            }
            done++;
        }
    }
    out[tid] = acc;
    useful[tid] = done;
}
