// Collatz step counts under warp votes. The loop is warp-consensual: a
// warp keeps iterating while any of its lanes still has work
// (__any_sync), and when every lane has an even value below the step
// limit (__all_sync) all of them halve together; otherwise each lane steps
// under its own condition. Lanes past n join the votes with value 1 (no
// work), so every live lane reaches every vote. steps[i] is the number of
// steps from start[i] to 1, or -1 when it exceeds LIMIT (a lane asks the
// warp with __ballot_sync). The results do not depend on the warp width.
#define LIMIT 500
#define FULL 0xffffffff

__global__ void collatz_vote(unsigned *start, int *steps, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = i < n ? start[i] : 1;
    int count = 0;
    while (__any_sync(FULL, x != 1 && count < LIMIT)) {
        if (__all_sync(FULL, x % 2 == 0 && count < LIMIT)) {
            x >>= 1;
            count++;
        } else if (x != 1 && count < LIMIT) {
            x = x % 2 ? 3 * x + 1 : x >> 1;
            count++;
        }
    }
    unsigned unfinished = __ballot_sync(FULL, x != 1);
    if (i < n) {
        steps[i] = unfinished != 0 && x != 1 ? -1 : count;
    }
}
