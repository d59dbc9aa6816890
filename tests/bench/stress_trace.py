#!/usr/bin/env python3
"""Writes synthetic Kineto traces that stress the reader's memory (docs/limits.md).

  events N OUT   N GPU kernel events (100 distinct names, 4 streams), each launched by a cpu_op
                 (so N/2 operators + N/2 kernels would be N events: here N kernels + N/8 cpu_ops)
  names N OUT    N kernel events, every one with its own name (~110 bytes, template-like)

OUT ending in .gz is gzip (level 1, fast); otherwise plain JSON. The traces are valid JSON with
the keys a PyTorch profiler writes, so every reader path (names, links, streams, shapes) runs.
Usage: tests/bench/stress_trace.py {events|names} N OUT
"""
import sys
import zlib


class Out:
    def __init__(self, path):
        self.f = open(path, "wb")
        self.z = zlib.compressobj(1, zlib.DEFLATED, 31) if path.endswith(".gz") else None
        self.parts = []
        self.size = 0

    def write(self, s):
        self.parts.append(s)
        self.size += len(s)
        if self.size > 1 << 20:
            self.flush()

    def flush(self):
        data = "".join(self.parts).encode()
        self.parts, self.size = [], 0
        self.f.write(self.z.compress(data) if self.z else data)

    def close(self):
        self.flush()
        if self.z:
            self.f.write(self.z.flush())
        self.f.close()


def kernel(name, ts, dur, ext, stream):
    return ('{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":%d,"ts":%d.%03d,"dur":%d.%03d,'
            '"args":{"External id":%d,"device":0,"stream":%d,"correlation":%d,'
            '"grid":[%d,1,1],"block":[256,1,1],"registers per thread":32}}'
            % (name, stream, ts // 1000, ts % 1000, dur // 1000, dur % 1000, ext, stream,
               ext, 1 + ext % 4096, ))


def cpu_op(name, ts, ext):
    return ('{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":1,"ts":%d.%03d,"dur":5.000,'
            '"args":{"External id":%d,"Input Dims":[[4096,4096],[4096]],"Ev Idx":%d}}'
            % (name, ts // 1000, ts % 1000, ext, ext))


def main():
    mode, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    out = Out(path)
    out.write('{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H200"}],'
              '"traceEvents":[\n')
    ts = 1700000000000000  # ns
    first = True
    for i in range(n):
        if mode == "events":
            name = "void at::native::vectorized_elementwise_kernel<4, op_%d>(int, F, A)" % (i % 100)
        else:
            name = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
                    "at::native::MeanOps<float, float>, unsigned int, float, %d> >(R)" % i)
        dur = 1000 + (i * 7919) % 50000
        parts = [kernel(name, ts, dur, i, 7 + i % 4)]
        if mode == "events" and i % 8 == 0:
            parts.append(cpu_op("aten::add", ts - 20000, i))
        for p in parts:
            out.write(p if first else ",\n" + p)
            first = False
        ts += dur + 500
    out.write('\n],"traceName":"stress"}\n')
    out.close()


if __name__ == "__main__":
    main()
