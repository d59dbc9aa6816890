// Reads one profile with reach::readProfile and prints its totals as JSON: the stand-in for
// `reach-cli breakdown --json` in scripts/bench, so the reader alone can be timed.
// --threads N sets the Kineto reader's parsing threads (0: one thread; default: from the host).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "core/base/inputerror.h"
#include "core/trace/profilereader.h"

int main(int argc, char** argv) {
    reach::KinetoOptions options;
    if (argc == 4 && std::strcmp(argv[1], "--threads") == 0) {
        options.threads = std::atoi(argv[2]);
        argv += 2;
        argc -= 2;
    }
    if (argc != 2) {
        std::fprintf(stderr, "usage: readprofile [--threads N] FILE\n");
        return 1;
    }
    try {
        reach::Workload w = reach::readProfile(argv[1], {}, {}, options);
        std::printf(
            "{\"name\":\"%s\",\"format\":\"%s\",\"device\":\"%s\",\"gpu_time_us\":%.3f,"
            "\"busy_time_us\":%.3f,\"span_us\":%.3f,\"events\":%lld,\"names\":%zu,"
            "\"linked\":%s,\"sha256\":\"%s\"}\n",
            w.name.c_str(), w.format.c_str(), w.device.c_str(), w.gpuTimeUs, w.busyTimeUs, w.spanUs,
            static_cast<long long>(w.eventCount), w.kernels.size(),
            w.hasOperatorLinks() ? "true" : "false", w.sourceHash.c_str());
        return 0;
    } catch (const reach::InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
