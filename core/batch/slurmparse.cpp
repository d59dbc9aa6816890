// What Slurm's own commands print, read back (captured outputs in tests/data/slurm/).
#include "core/batch/slurmbatch.h"

#include <map>
#include <sstream>

namespace reach {

namespace {

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") + 1 - b);
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, sep);)
        out.push_back(part);
    if (!s.empty() && s.back() == sep)
        out.emplace_back();
    return out;
}

// "4-9%2" / "4,6,8-9" -> the task ids (the "%N" limit dropped).
std::vector<int> expandRange(std::string spec) {
    spec = spec.substr(0, spec.find('%'));
    std::vector<int> out;
    for (const std::string& part : split(spec, ',')) {
        const size_t dash = part.find('-');
        try {
            if (dash == std::string::npos) {
                out.push_back(std::stoi(part));
            } else {
                const int a = std::stoi(part.substr(0, dash)), b = std::stoi(part.substr(dash + 1));
                for (int t = a; t <= b && out.size() < 1000000; ++t)
                    out.push_back(t);
            }
        } catch (const std::exception&) {
        }
    }
    return out;
}

// "123_4", "123_[4-9%2]", "123" -> the state's job id and tasks.
void parseJobId(const std::string& id, SlurmTaskState& s) {
    const size_t us = id.find('_');
    s.jobId = id.substr(0, us);
    if (us == std::string::npos)
        return;
    std::string rest = id.substr(us + 1);
    if (!rest.empty() && rest.front() == '[') {
        rest = rest.substr(1, rest.find(']') - 1);
        s.tasks = expandRange(rest);
        return;
    }
    try {
        s.task = std::stoi(rest);
        s.tasks = {s.task};
    } catch (const std::exception&) {
    }
}

}  // namespace

std::string parseSbatchJobId(const std::string& out) {
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        line = trim(line);
        const std::string prefix = "Submitted batch job ";
        if (line.rfind(prefix, 0) == 0)
            line = trim(line.substr(prefix.size()));
        line = line.substr(0, line.find(';'));
        if (!line.empty() && line.find_first_not_of("0123456789") == std::string::npos)
            return line;
    }
    return {};
}

std::vector<SlurmTaskState> parseSqueue(const std::string& text) {
    std::vector<SlurmTaskState> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        line = trim(line);
        if (line.empty() || line.rfind("JOBID", 0) == 0)
            continue;
        const auto f = split(line, '|');
        if (f.size() < 2)
            continue;
        SlurmTaskState s;
        parseJobId(trim(f[0]), s);
        s.state = trim(f[1]);
        if (f.size() > 2)
            s.reason = trim(f[2]);
        if (!s.jobId.empty())
            out.push_back(std::move(s));
    }
    return out;
}

std::vector<SlurmTaskState> parseSacct(const std::string& text) {
    std::vector<SlurmTaskState> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        line = trim(line);
        if (line.empty() || line.rfind("JobID", 0) == 0)
            continue;
        const auto f = split(line, '|');
        if (f.size() < 2)
            continue;
        const std::string id = trim(f[0]);
        if (id.find('.') != std::string::npos)
            continue;  // a step (123_4.batch): the task's own line says it
        SlurmTaskState s;
        parseJobId(id, s);
        const std::string state = trim(f[1]);
        s.state = state.substr(0, state.find(' '));  // "CANCELLED by 0"
        if (f.size() > 2)
            s.exitCode = trim(f[2]);
        if (!s.jobId.empty())
            out.push_back(std::move(s));
    }
    return out;
}

std::vector<SlurmTaskState> parseScontrolJobs(const std::string& text) {
    std::vector<SlurmTaskState> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (trim(line).empty())
            continue;
        std::map<std::string, std::string> kv;
        std::istringstream words(line);
        for (std::string w; words >> w;) {
            const size_t eq = w.find('=');
            if (eq != std::string::npos)
                kv[w.substr(0, eq)] = w.substr(eq + 1);
        }
        if (!kv.count("JobState"))
            continue;
        SlurmTaskState s;
        s.jobId = kv.count("ArrayJobId") ? kv["ArrayJobId"] : kv["JobId"];
        if (kv.count("ArrayTaskId")) {
            const std::string t = kv["ArrayTaskId"];
            s.tasks = expandRange(t);
            if (t.find_first_not_of("0123456789") == std::string::npos && !t.empty())
                s.task = std::stoi(t);
        }
        s.state = kv["JobState"];
        s.reason = kv["Reason"];
        s.exitCode = kv["ExitCode"];
        out.push_back(std::move(s));
    }
    return out;
}

bool isActiveSlurmState(const std::string& s) {
    for (const char* a :
         {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "REQUEUE_FED",
          "REQUEUE_HOLD", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD"})
        if (s == a)
            return true;
    return false;
}

bool isFailedSlurmState(const std::string& s) {
    for (const char* f : {"FAILED", "TIMEOUT", "PREEMPTED", "CANCELLED", "NODE_FAIL",
                          "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"})
        if (s == f)
            return true;
    return false;
}

}  // namespace reach
