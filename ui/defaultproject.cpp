#include "defaultproject.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

#include "core/analysis/publishedstudy.h"
#include "core/base/inputerror.h"
#include "core/records/recordimport.h"
#include "core/records/recordreader.h"

namespace reach {

QString bundledDatasetsDir() {
    const QString env = qEnvironmentVariable("REACH_DATASETS");
    QStringList candidates;
    if (!env.isEmpty())
        candidates << env;
    if (QCoreApplication::instance())
        candidates << QCoreApplication::applicationDirPath() + "/../share/reach/datasets";
    candidates << QStringLiteral(REACH_DATASETS_DIR);
    for (const QString& dir : candidates) {
        if (QFileInfo::exists(dir + "/paper/table3.json"))
            return QDir(dir).canonicalPath();
    }
    return {};
}

std::vector<EvaluationSummary> publishedBenchmarks(const QString& table3Path) {
    QFile file(table3Path);
    if (!file.open(QIODevice::ReadOnly))
        throw InputError(table3Path.toStdString(), "file", "a readable JSON file");
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    if (doc.isNull())
        throw InputError(table3Path.toStdString(), "byte " + std::to_string(error.offset),
                         error.errorString().toStdString());
    std::vector<EvaluationSummary> sets;
    const QJsonArray benchmarks = doc.object().value("benchmarks").toArray();
    for (int i = 0; i < benchmarks.size(); ++i) {
        const QJsonObject b = benchmarks[i].toObject();
        if (!b.value("name").isString() || !b.value("denominator").isDouble() ||
            !b.value("verified_faster").isDouble())
            throw InputError(table3Path.toStdString(), "benchmarks[" + std::to_string(i) + "]",
                             "\"name\", \"denominator\" and \"verified_faster\"");
        EvaluationSummary set;
        set.name = b.value("name").toString();
        set.origin = QStringLiteral("published summary");
        set.denominator = b.value("denominator").toInt();
        set.winners = b.value("verified_faster").toInt();
        if (b.value("median_speedup").isDouble())
            set.medianSpeedup = b.value("median_speedup").toDouble();
        if (b.value("max_speedup").isDouble())
            set.maxSpeedup = b.value("max_speedup").toDouble();
        sets.push_back(std::move(set));
    }
    return sets;
}

PublishedProject loadPublishedStudy(const QString& table3Path) {
    PublishedProject out;
    const PublishedStudy study = readPublishedStudy(table3Path.toStdString());
    out.source = QString::fromStdString(study.source);
    for (const PublishedWorkload& w : study.workloads) {
        ProjectWorkload entry;
        entry.name = QString::fromStdString(w.name);
        entry.origin = QStringLiteral("published, A100");
        entry.published = true;
        entry.publishedLibraryOptimized = w.libraryOptimized;
        entry.publishedAddressable = w.addressable;
        entry.publishedGain = w.projectedGain;
        out.workloads.push_back(std::move(entry));
    }
    out.benchmarks = publishedBenchmarks(table3Path);
    return out;
}

bool isPublishedStudyFile(const QString& path) {
    if (!path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        return false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = file.read(64 * 1024);
    return head.contains("\"workloads\"") && !head.contains("\"traceEvents\"");
}

DefaultProject loadDefaultProject(const QString& datasetsDir) {
    DefaultProject project;
    project.datasetsDir = datasetsDir;
    const QString table3 = datasetsDir + "/paper/table3.json";
    PublishedProject study = loadPublishedStudy(table3);
    project.studySource = study.source;
    project.published = std::move(study.workloads);
    // Measured records (datasets/evaluations/**.jsonl) come first: they are the default
    // evaluation set once they exist; the study's summaries follow.
    QDirIterator records(datasetsDir + "/evaluations", {"*.jsonl"}, QDir::Files,
                         QDirIterator::Subdirectories);
    QStringList recordFiles;
    while (records.hasNext())
        recordFiles << records.next();
    recordFiles.sort();
    for (const QString& file : recordFiles) {
        try {
            project.evaluations.push_back(EvaluationSummary::fromRecords(
                QFileInfo(file).completeBaseName(), file, readReachJsonl(file.toStdString())));
        } catch (const InputError& e) {
            // A bad records file must not keep the sample from opening; say so and go on.
            qWarning("reach: %s", e.what());
        }
    }
    // The set measured on the H200 with reach-verify (raw verifier outputs, one per candidate):
    // read through the records importer, so it is the same data `reach-cli speedups` reports.
    const QString measured = datasetsDir + "/evaluations/h200/raw";
    if (QFileInfo(measured).isDir()) {
        try {
            project.evaluations.insert(
                project.evaluations.begin(),
                EvaluationSummary::fromRecords(QStringLiteral("H200 reach-verify (measured)"),
                                               measured, readRecords(measured.toStdString(), {})));
        } catch (const InputError& e) {
            qWarning("reach: %s", e.what());
        }
    }
    for (EvaluationSummary& set : study.benchmarks)
        project.evaluations.push_back(std::move(set));
    const QDir h200(datasetsDir + "/profiles/h200");
    // Small first, so the breakdown fills in within a second and the 75 MB trace comes last.
    const QFileInfoList files = h200.entryInfoList({"*.json.gz", "*.json", "*.sqlite"}, QDir::Files,
                                                   QDir::Size | QDir::Reversed);
    for (const QFileInfo& f : files) {
        if (f.fileName() != QLatin1String("manifest.json"))
            project.profilePaths << f.absoluteFilePath();
    }
    return project;
}

}  // namespace reach
