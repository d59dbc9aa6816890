#pragma once

#include <QString>
#include <QStringList>
#include <vector>

#include "projectdata.h"

namespace reach {

// The bundled sample project that `reach` opens with no arguments: the study's seven workloads
// as published, the H200 sample profiles (read and classified in the background), and the
// study's benchmark summaries as evaluation sets until measured records exist.
struct DefaultProject {
    QString datasetsDir;
    QString studySource;                         // "arXiv 2609.21058 Table 3 (...)"
    std::vector<ProjectWorkload> published;      // ready at once
    std::vector<EvaluationSummary> evaluations;  // ready at once
    QStringList profilePaths;                    // to be read in the background
};

// Where the bundled datasets are: $REACH_DATASETS, then <app>/../share/reach/datasets, then
// the source tree this binary was built from. Empty when none exists.
QString bundledDatasetsDir();

// Reads the published study (datasets/paper/table3.json) and lists the H200 sample profiles.
// Throws InputError when table3.json is missing or malformed.
DefaultProject loadDefaultProject(const QString& datasetsDir);

// The study's benchmark summaries from table3.json's "benchmarks" list.
std::vector<EvaluationSummary> publishedBenchmarks(const QString& table3Path);

// A published study file (datasets/paper/table3.json's format) read as the project sees it:
// its workloads as published and its benchmark summaries as evaluation sets. Throws InputError
// naming the file and the key.
struct PublishedProject {
    QString source;
    std::vector<ProjectWorkload> workloads;
    std::vector<EvaluationSummary> benchmarks;
};
PublishedProject loadPublishedStudy(const QString& table3Path);

// Whether a file given to import is a published study rather than a profile: a .json whose
// first 64 KiB name "workloads" and not "traceEvents" (a Kineto trace). Cheap: it never parses.
bool isPublishedStudyFile(const QString& path);

}  // namespace reach
