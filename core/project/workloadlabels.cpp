#include "core/project/workloadlabels.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>
#include <set>

namespace reach {

namespace {

std::string lower(std::string s) {
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// GPU families as papers write them, lower case, matched against one word.
bool isHardwareWord(const std::string& word) {
    static const std::regex kFamilies(
        "(a[0-9]{2,3}|h[0-9]{3}|b[0-9]{3}|gh200|gb200|l[0-9]{1,2}s?|v100|p100|k80|t4|"
        "mi[0-9]{2,3}[a-z]?|rtx[0-9]{4}|w[0-9]{4})");
    return std::regex_match(lower(word), kFamilies);
}

// The first words of trace names that say which tool or collection recorded them, never which
// model ran: "tracelens_vllm_decode_graph_mi300x", "hta_simple_add_a100". A name's first word
// is otherwise its model ("videomae-base-...", "resnet50_...") and is kept (shortNames).
bool isToolWord(const std::string& word) {
    static const std::set<std::string> kTools = {"tracelens", "hta",   "pipit",  "kineto",  "nsys",
                                                 "nsight",    "trace", "traces", "profile", "pt",
                                                 "torch",     "bench", "run",    "test"};
    return kTools.count(lower(word)) > 0;
}

struct Word {
    size_t begin, end;  // in the name
    std::string key;    // lower case
};

// Words are split at _ - . and spaces, but a dot inside a number ("qwen2.5", "1.5b") and a dash
// before a digit ("ResNet-50", "Llama-70B") belong to their word: a model's name stays whole.
bool separatorAt(const std::string& name, size_t i) {
    auto digit = [&](size_t k) {
        return k < name.size() && std::isdigit(static_cast<unsigned char>(name[k]));
    };
    if (name[i] == '.')
        return !(i > 0 && digit(i - 1) && digit(i + 1));
    if (name[i] == '-')
        return !(i > 0 && digit(i + 1));
    return name[i] == '_' || name[i] == ' ';
}

std::vector<Word> words(const std::string& name) {
    std::vector<Word> out;
    size_t i = 0;
    while (i < name.size()) {
        while (i < name.size() && separatorAt(name, i))
            ++i;
        const size_t b = i;
        while (i < name.size() && !separatorAt(name, i))
            ++i;
        if (i > b)
            out.push_back({b, i, lower(name.substr(b, i - b))});
    }
    return out;
}

bool containsRun(const std::vector<Word>& hay, const std::vector<Word>& needle, size_t a,
                 size_t b) {
    const size_t n = b - a + 1;
    for (size_t s = 0; s + n <= hay.size(); ++s) {
        bool all = true;
        for (size_t k = 0; k < n && all; ++k)
            all = hay[s + k].key == needle[a + k].key;
        if (all)
            return true;
    }
    return false;
}

}  // namespace

std::string gpuModel(const std::string& device) {
    if (device.empty() || device == "profile")
        return {};
    static const std::regex kModel(
        "\\b(GH200|GB200|[AHBLVPK][0-9]{1,4}S?|T4|MI[0-9]{2,3}[A-Z]?|RTX ?[0-9]{4}[A-Za-z ]*?)"
        "(?=$|[^0-9A-Za-z])",
        std::regex::icase);
    std::smatch m;
    if (std::regex_search(device, m, kModel)) {
        std::string s = m[1].str();
        while (!s.empty() && s.back() == ' ')
            s.pop_back();
        for (char& c : s)
            c = char(std::toupper(static_cast<unsigned char>(c)));
        return s;
    }
    std::string rest = device;
    for (const char* vendor : {"NVIDIA ", "AMD Instinct ", "AMD ", "Intel "})
        if (rest.rfind(vendor, 0) == 0)
            rest = rest.substr(std::string(vendor).size());
    return rest.substr(0, rest.find(' '));
}

std::string gpuModelInName(const std::string& name) {
    for (const Word& w : words(name))
        if (isHardwareWord(w.key)) {
            std::string s = name.substr(w.begin, w.end - w.begin);
            for (char& c : s)
                c = char(std::toupper(static_cast<unsigned char>(c)));
            return s;
        }
    return {};
}

std::vector<std::string> shortNames(const std::vector<std::string>& names, size_t keepUpTo) {
    std::vector<std::vector<Word>> all;
    for (const std::string& n : names)
        all.push_back(words(n));
    // A word that begins two or more other names names their collection ("tracelens", "hta"):
    // never added to a short name for context.
    auto collectionPrefix = [&](size_t self, const std::string& key) {
        int n = 0;
        for (size_t j = 0; j < all.size(); ++j)
            n += j != self && !all[j].empty() && all[j][0].key == key;
        return n >= 2;
    };
    std::vector<std::string> out;
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string& name = names[i];
        const std::vector<Word>& w = all[i];
        // A short name stays whole, unless it carries what every label says elsewhere: its
        // collection's prefix or a GPU (the tag shows the GPU).
        const bool decorated =
            !w.empty() &&
            (collectionPrefix(i, w[0].key) ||
             std::any_of(w.begin(), w.end(), [](const Word& x) { return isHardwareWord(x.key); }));
        if (w.empty() || (name.size() <= keepUpTo && !decorated)) {
            out.push_back(name);
            continue;
        }
        auto unique = [&](size_t a, size_t b) {
            for (size_t j = 0; j < all.size(); ++j)
                if (j != i && containsRun(all[j], w, a, b))
                    return false;
            return true;
        };
        auto length = [&](size_t a, size_t b) { return w[b].end - w[a].begin; };
        // The shortest run that no other name has, not starting or ending on a hardware word.
        size_t bestA = 0, bestB = 0, best = std::string::npos;
        for (size_t a = 0; a < w.size(); ++a) {
            if (isHardwareWord(w[a].key))
                continue;
            for (size_t b = a; b < w.size(); ++b) {
                if (length(a, b) >= best)
                    break;
                if (!isHardwareWord(w[b].key) && unique(a, b)) {
                    best = length(a, b);
                    bestA = a;
                    bestB = b;
                    break;
                }
            }
        }
        if (best == std::string::npos) {
            out.push_back(name);  // inside another name, or the same: the tag tells them apart
            continue;
        }
        // Context: neighbouring words while the label stays within keepUpTo, right first.
        for (bool grew = true; grew;) {
            grew = false;
            if (bestB + 1 < w.size() && !isHardwareWord(w[bestB + 1].key) &&
                length(bestA, bestB + 1) <= keepUpTo) {
                ++bestB;
                grew = true;
            } else if (bestA > 0 && !isHardwareWord(w[bestA - 1].key) &&
                       !collectionPrefix(i, w[bestA - 1].key) &&
                       length(bestA - 1, bestB) <= keepUpTo) {
                --bestA;
                grew = true;
            }
        }
        // A name begins with its model ("resnet50", "qwen2.5-14b", "videomae": its first word,
        // unless that is a collection's prefix, a tool's name or a GPU) and keeps it when that
        // costs at most
        // 40 % more: "resnet50_inference_compiled", not "inference_compiled";
        // "videomae-base-finetuned-k400", not "base-finetuned-k400" (issue 40: the model was gone).
        if (bestA > 0 && !isHardwareWord(w[0].key) && !isToolWord(w[0].key) &&
            !collectionPrefix(i, w[0].key) && length(0, bestB) <= keepUpTo + keepUpTo * 2 / 5)
            bestA = 0;
        out.push_back(name.substr(w[bestA].begin, length(bestA, bestB)));
    }
    return out;
}

std::pair<size_t, size_t> mostAlikePair(const std::vector<std::string>& names) {
    // Each name's words that say what ran (a GPU or a tool word says where, or who recorded).
    std::vector<std::vector<std::string>> keys;
    for (const std::string& name : names) {
        std::vector<std::string> k;
        for (const Word& w : words(name))
            if (!isHardwareWord(w.key) && !isToolWord(w.key))
                k.push_back(w.key);
        keys.push_back(std::move(k));
    }
    std::pair<size_t, size_t> best{0, 1};
    size_t bestShared = 0;
    for (size_t i = 0; i < keys.size(); ++i)
        for (size_t j = i + 1; j < keys.size(); ++j) {
            size_t shared = 0;
            while (shared < keys[i].size() && shared < keys[j].size() &&
                   keys[i][shared] == keys[j][shared])
                ++shared;
            if (shared > bestShared) {
                bestShared = shared;
                // The one with fewer words first: the base ("resnet50_inference") as A, the
                // variant ("..._compiled") as B.
                best = keys[j].size() < keys[i].size() ? std::pair{j, i} : std::pair{i, j};
            }
        }
    return best;
}

}  // namespace reach
