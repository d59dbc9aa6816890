#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/analysis/ruleset.h"
#include "core/base/inputerror.h"
#include "core/base/progress.h"
#include "core/project/project.h"
#include "core/records/recordimport.h"
#include "core/records/recordreader.h"

namespace reach {

// What opening inputs means, decided before anything large is read: the parts that are small and
// ready at once (published workloads, evaluation sets, a project's rules) and the workloads to
// read, which the GUI reads in the background and the CLI at once. One implementation for both:
// the GUI's Session and every reach-cli subcommand open inputs through it.
//
// An input is, by content and then by name:
//   nothing            the bundled sample (the study as published, the H200 profiles, the
//                      evaluation sets measured with reach-verify, the study's summaries);
//   a .reach file      a project: its workloads, record sets and last-used rules;
//   a directory        a folder of profiles (small first), or of evaluation records (reach-verify
//                      outputs, Reach JSONL) read as ONE evaluation set;
//   a published study  datasets/paper/table3.json's format: workloads as published, benchmark
//                      summaries as evaluation sets;
//   a records file     Reach JSONL (.jsonl), reach-verify output, or what `records` options name;
//   anything else      a profile (Kineto JSON/JSON.gz, Nsight SQLite: the reader decides).
struct OpenOptions {
    RecordReadOptions records;  // how records files are read (KernelBench baselines, mappings)
    // Each records file becomes its own set named after the file (reach-cli speedups); a folder
    // is always one set.
};

struct OpenPlan {
    std::string projectName;
    std::string storePath;  // the (first) .reach project opened, empty otherwise
    std::vector<ProjectWorkload> published;
    std::vector<EvaluationSet> evaluations;
    std::optional<RuleSet> storedRules;  // the rules a .reach project was last used with
    std::vector<std::string> warnings;   // loaded with a problem, one line each
    std::vector<std::string> profiles;   // profiles to read, in this order
    std::vector<std::string> stores;     // .reach projects whose workloads to read
    std::vector<std::string> sources;    // files the ready parts came from
    std::vector<PublishedProjection> studies;

    bool hasWorkloadsToRead() const { return !profiles.empty() || !stores.empty(); }
};

// Throws InputError naming the path for a missing input, an unreadable project, published table
// or records file. Nothing large is read here.
OpenPlan planOpen(const std::vector<std::string>& inputs, const OpenOptions& options = {});

// Whether `path` is a records file in a shape no reader knows, which only a column mapping
// (OpenOptions::records.mapping) can read: a .csv or .json file that is a table (a CSV header, a
// JSON list of objects or an object holding one) and neither a profile, a project, a published
// table nor a format detectRecordFormat knows. The GUI asks for a mapping instead of an error.
bool needsColumnMapping(const std::string& path);

// The bundled sample's plan; throws InputError when its datasets cannot be found or read.
OpenPlan planSample();

// One workload read and classified.
struct LoadedWorkload {
    std::shared_ptr<const Workload> workload;
    std::shared_ptr<const Breakdown> breakdown;
};

// Reads the plan's workloads in order: each stored workload, then each profile. `deliver` gets
// every workload as it is read; `fail` the one-line error of each profile that cannot be read
// (the others still load). Progress is weighted by file size. A stop request ends the reading
// (throws Cancelled); what was delivered stays delivered. A project that cannot be opened throws.
void readPlanWorkloads(const OpenPlan& plan, const RuleSet& rules,
                       const std::function<void(LoadedWorkload)>& deliver,
                       const std::function<void(const InputError& error)>& fail,
                       const ProgressFn& progress = {}, std::stop_token stop = {});

// Everything at once, for the command line: the plan made and read into a Project. `rules`
// given: classified with them (a project's stored rules are ignored); absent: the project's
// stored rules, else the built-in default. The first unreadable input throws InputError.
Project openInputs(const std::vector<std::string>& inputs, const std::optional<RuleSet>& rules,
                   const OpenOptions& options = {});

}  // namespace reach
