#pragma once

#include <string>
#include <utility>
#include <vector>

namespace reach {

// Short labels for axes, legends and CSVs (issue 25): a dozen real traces are named like
// "tracelens_vllm_prefilldecode_graph_mi300x" and their devices like "NVIDIA A100-SXM4-40GB
// -PG509-200"; at a single column's 3.5 in every such label was cut and no reader could tell the
// rows apart. The full name and device stay in tooltips, the CSV and the provenance JSON.

// The GPU's model as papers name it: "NVIDIA A100-SXM4-40GB" -> "A100", "NVIDIA H100 80GB HBM3"
// -> "H100", "AMD Instinct MI300X" -> "MI300X", "NVIDIA GeForce RTX 4090" -> "RTX 4090". A device
// of no known family keeps its first word after the vendor; "" and "profile" (a trace that names
// no device) give "".
std::string gpuModel(const std::string& device);

// The GPU a name carries ("tracelens_vllm_decode_graph_mi300x" -> "MI300X"), "" when none: the
// tag of a trace whose device is not recorded.
std::string gpuModelInName(const std::string& name);

// Each name's shortest distinguishing part: names of at most `keepUpTo` characters stay whole
// (unless they begin with a word that begins two other names, or name a GPU);
// a longer one becomes the shortest run of its words (split at _ - . and spaces, keeping
// "ResNet-50" and "qwen2.5" whole) that no other name contains, leaving out words that only name
// hardware ("a100", "mi300x": the tag says it), widened by its neighbouring words while it stays
// within `keepUpTo`. A name with no such run (it lies inside another, or is another) stays whole.
// Distinct names give distinct results.
std::vector<std::string> shortNames(const std::vector<std::string>& names, size_t keepUpTo = 20);

// The two names most alike, for a comparison to open on (the GUI's Compare dialog): the pair
// sharing the most leading words, hardware and tool words left out ("resnet50_inference" and
// "resnet50_inference_compiled"; "qwen_training_a100" and "qwen_training_h100"), ties to the
// earlier pair; the name with fewer such words first (the base, then its variant); {0, 1} when
// no two names share a first word. Needs at least two names.
std::pair<size_t, size_t> mostAlikePair(const std::vector<std::string>& names);

}  // namespace reach
