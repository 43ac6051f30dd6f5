// Mandelbrot iteration counts in Q12 fixed point (4096 = 1.0): pixel
// (px, py) is c = (x0 + px * step, y0 + py * step); iters gets the number
// of steps z = z^2 + c taken before |z|^2 > 4, at most max_iter. Trip
// counts differ from pixel to pixel: a data-dependent loop with an early
// break (ESCAPE is 4.0 in Q12). 2-D grid and blocks; pixels past the
// image edge do nothing.
#define FRAC 12
#define ESCAPE 16384

__global__ void mandelbrot(int *iters, int width, int height, int max_iter, int x0, int y0, int step)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) {
        return;
    }
    int cr = x0 + px * step;
    int ci = y0 + py * step;
    int zr = 0;
    int zi = 0;
    int it = 0;
    while (it < max_iter) {
        int zr2 = (zr * zr) >> FRAC;
        int zi2 = (zi * zi) >> FRAC;
        if (zr2 + zi2 > ESCAPE) {
            break;
        }
        zi = ((zr * zi) >> (FRAC - 1)) + ci;
        zr = zr2 - zi2 + cr;
        it++;
    }
    iters[py * width + px] = it;
}
