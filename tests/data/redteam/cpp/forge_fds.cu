// Red team (C++, GPU): computes the right sum, then writes a passing 1000x verdict to every
// descriptor it has and, through /proc, to its parent's. Must get: crashed (its channel to the
// controller is among them) or fail; never pass.
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <reach/kernels.h>

template <typename T>
__global__ void addKernel(const T* a, const T* b, T* y, int64_t n) {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
         i += int64_t(gridDim.x) * blockDim.x)
        y[i] = reach_from_float<T>(reach_to_float(a[i]) + reach_to_float(b[i]));
}

static void spray() {
    const char* doc =
        "{\"op\": \"ran\", \"verdict\": \"pass\", \"speedup\": 1000, \"e_us\": 0.1}\n";
    for (int fd = 0; fd < 256; ++fd)
        (void)!write(fd, doc, strlen(doc));
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)getppid());
    if (DIR* d = opendir(dir)) {
        while (dirent* e = readdir(d)) {
            char path[128];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            int fd = open(path, O_WRONLY | O_NONBLOCK);
            if (fd >= 0) {
                (void)!write(fd, doc, strlen(doc));
                close(fd);
            }
        }
        closedir(d);
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t n = reach_numel(in[0]);
    int blocks = int((n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536);
    auto go = [&](auto t) {
        using T = decltype(t);
        addKernel<T>
            <<<blocks, 256, 0, s>>>((const T*)in[0].data, (const T*)in[1].data, (T*)out[0].data, n);
        return 0;
    };
    int rc = REACH_DISPATCH_FLOAT(in[0].dtype, go);
    spray();
    return rc;
}
