#include "session.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "core/base/inputerror.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/trace/profilereader.h"
#include "defaultproject.h"

namespace reach {

struct Session::LoadResult {
    int generation = 0;
    std::shared_ptr<const Workload> workload;
    std::shared_ptr<const Breakdown> breakdown;
    QString error;  // one line, naming the file; empty on success
};

namespace {

struct ReclassifyResult {
    int id = 0;
    std::vector<std::shared_ptr<const Breakdown>> breakdowns;  // parallel to the inputs
};

std::shared_ptr<const Breakdown> classify(const Workload& w, const RuleSet& rules) {
    return std::make_shared<const Breakdown>(computeBreakdown(w, rules));
}

}  // namespace

Session::Session(QObject* parent) : QObject(parent), m_rules(RuleSet::builtinDefault()) {}

Session::~Session() {
    cancelJobs();
}

QStringList Session::inputFiles() const {
    return m_sources;
}

void Session::resetProject(const QString& name) {
    cancelJobs();
    ++m_generation;
    m_workloads.clear();
    m_evaluations.clear();
    m_sources.clear();
    m_projectName = name;
    m_storePath.clear();
}

bool Session::openDefault(QString* error) {
    const QString dir = bundledDatasetsDir();
    if (dir.isEmpty()) {
        if (error)
            *error = tr("the bundled datasets were not found (set REACH_DATASETS)");
        return false;
    }
    DefaultProject project;
    try {
        project = loadDefaultProject(dir);
    } catch (const InputError& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    resetProject(tr("Sample project (bundled)"));
    m_workloads = std::move(project.published);
    m_evaluations = std::move(project.evaluations);
    m_sources << dir + "/paper/table3.json";
    emit projectOpened();
    emit workloadsChanged();
    emit evaluationsChanged();
    startLoad(tr("Reading H200 sample profiles"), project.profilePaths, {});
    return true;
}

bool Session::openProject(const QString& path, QString* error) {
    const QFileInfo info(path);
    if (!info.exists()) {
        if (error)
            *error = tr("%1: no such file or directory").arg(path);
        return false;
    }
    // A project's evaluation sets are small next to its profiles (thousands of rows at most), so
    // they are read here, before anything of the open project is dropped: a project that cannot
    // be read leaves the current one as it was. Workloads, which can be large, load in the
    // background below.
    std::vector<EvaluationSummary> storedSets;
    std::optional<RuleSet> storedRules;
    QString rulesError;
    const bool isStore = info.isFile() && info.suffix() == QLatin1String("reach");
    if (isStore) {
        try {
            const ProjectStore project = ProjectStore::open(info.absoluteFilePath().toStdString(),
                                                            ProjectStore::Mode::MustExist);
            for (const RecordSetEntry& set : recordSets(project)) {
                storedSets.push_back(EvaluationSummary::fromRecords(
                    QString::fromStdString(set.name), QString::fromStdString(set.source),
                    loadRecordSet(project, set.id)));
            }
            // The rules the project was last used with (imported with, or last edited in the
            // GUI): its numbers are shown as they were left. A stored set that no longer parses
            // is reported and the current rules stay; the project still opens.
            try {
                storedRules = project.latestRuleSet();
            } catch (const InputError& e) {
                rulesError = QString::fromUtf8(e.what());
            }
        } catch (const std::exception& e) {
            if (error)
                *error = QString::fromStdString(e.what());
            return false;
        }
    }
    resetProject(info.fileName());
    m_evaluations = std::move(storedSets);
    if (isStore)
        m_storePath = info.absoluteFilePath();
    if (storedRules) {
        m_rules = std::move(*storedRules);
        emit rulesChanged();
    }
    if (!rulesError.isEmpty())
        emit loadError(rulesError);
    emit projectOpened();
    emit workloadsChanged();
    emit evaluationsChanged();
    if (info.isDir()) {
        QStringList profiles;
        for (const QFileInfo& f : QDir(path).entryInfoList(
                 {"*.json.gz", "*.json", "*.sqlite"}, QDir::Files, QDir::Size | QDir::Reversed)) {
            if (f.fileName() != QLatin1String("manifest.json"))
                profiles << f.absoluteFilePath();
        }
        startLoad(tr("Reading profiles"), profiles, {});
    } else if (info.suffix() == QLatin1String("reach")) {
        startLoad(tr("Opening project"), {}, info.absoluteFilePath());
    } else {
        startLoad(tr("Reading profile"), {info.absoluteFilePath()}, {});
    }
    return true;
}

void Session::importProfiles(const QStringList& paths) {
    QStringList profiles;
    for (const QString& path : paths) {
        if (!isPublishedStudyFile(path)) {
            profiles << path;
            continue;
        }
        try {
            PublishedProject study = loadPublishedStudy(path);
            for (ProjectWorkload& w : study.workloads)
                m_workloads.push_back(std::move(w));
            for (EvaluationSummary& set : study.benchmarks)
                m_evaluations.push_back(std::move(set));
            m_sources << path;
            emit workloadsChanged();
            emit evaluationsChanged();
        } catch (const InputError& e) {
            emit loadError(QString::fromUtf8(e.what()));
        }
    }
    if (!profiles.isEmpty())
        startLoad(tr("Importing %n profile(s)", nullptr, int(profiles.size())), profiles, {});
}

void Session::addEvaluationSet(EvaluationSummary set) {
    m_evaluations.push_back(std::move(set));
    emit evaluationsChanged();
}

void Session::setRules(RuleSet rules, bool keepInProject) {
    m_rules = std::move(rules);
    // An open project file keeps the edited rules, so reopening it shows the same numbers. A
    // failed save is reported; the edit itself stays in effect.
    if (keepInProject && !m_storePath.isEmpty()) {
        try {
            ProjectStore project =
                ProjectStore::open(m_storePath.toStdString(), ProjectStore::Mode::MustExist);
            project.saveRuleSet(m_rules);
        } catch (const std::exception& e) {
            emit loadError(QString::fromStdString(e.what()));
        }
    }
    emit rulesChanged();
    startReclassify();
}

void Session::cancelJobs() {
    for (std::stop_source& s : m_stops)
        s.request_stop();
}

void Session::jobEnded() {
    emit jobFinished();
    if (--m_activeJobs == 0) {
        m_stops.clear();
        emit idle();
    }
}

void Session::startLoad(const QString& label, const QStringList& profiles,
                        const QString& storePath) {
    std::stop_source stop;
    m_stops.push_back(stop);
    ++m_activeJobs;
    emit jobStarted(label);

    const int generation = m_generation;
    auto* watcher = new QFutureWatcher<LoadResult>(this);
    connect(watcher, &QFutureWatcher<LoadResult>::progressValueChanged, this,
            [this](int value) { emit jobProgress(value / 1000.0); });
    connect(watcher, &QFutureWatcher<LoadResult>::resultReadyAt, this,
            [this, watcher](int i) { acceptLoaded(watcher->resultAt(i)); });
    connect(watcher, &QFutureWatcher<LoadResult>::finished, this, [this, watcher] {
        watcher->deleteLater();
        jobEnded();
    });

    // The job gets copies: the rule set may change on the GUI thread while it runs (the
    // breakdown then carries the old hash and is re-classified on arrival).
    const RuleSet rules = m_rules;
    const std::vector<std::string> paths = [&] {
        std::vector<std::string> v;
        for (const QString& p : profiles)
            v.push_back(p.toStdString());
        return v;
    }();
    const std::string store = storePath.toStdString();
    const std::stop_token token = stop.get_token();
    watcher->setFuture(QtConcurrent::run([paths, store, rules, token,
                                          generation](QPromise<LoadResult>& promise) {
        promise.setProgressRange(0, 1000);
        auto deliver = [&](Workload w) {
            LoadResult r;
            r.generation = generation;
            auto workload = std::make_shared<const Workload>(std::move(w));
            r.breakdown = classify(*workload, rules);
            r.workload = std::move(workload);
            promise.addResult(std::move(r));
        };
        auto fail = [&](const std::string& message) {
            LoadResult r;
            r.generation = generation;
            r.error = QString::fromStdString(message);
            promise.addResult(std::move(r));
        };
        try {
            if (!store.empty()) {
                ProjectStore project = ProjectStore::open(store, ProjectStore::Mode::MustExist);
                const auto entries = project.workloadEntries();
                for (size_t i = 0; i < entries.size(); ++i) {
                    if (token.stop_requested())
                        return;
                    deliver(project.loadWorkload(entries[i].id));
                    promise.setProgressValue(int(1000.0 * (i + 1) / entries.size()));
                }
                return;
            }
            // Progress is weighted by file size so the bar moves evenly across small and
            // large traces.
            std::vector<double> sizes;
            double total = 0;
            for (const std::string& p : paths) {
                sizes.push_back(std::max<double>(1.0, QFileInfo(QString::fromStdString(p)).size()));
                total += sizes.back();
            }
            double done = 0;
            for (size_t i = 0; i < paths.size(); ++i) {
                if (token.stop_requested())
                    return;
                try {
                    const double base = done, weight = sizes[i];
                    deliver(readProfile(
                        paths[i],
                        [&](double f) {
                            promise.setProgressValue(int(1000.0 * (base + f * weight) / total));
                        },
                        token));
                } catch (const InputError& e) {
                    fail(e.what());
                }
                done += sizes[i];
                promise.setProgressValue(int(1000.0 * done / total));
            }
        } catch (const Cancelled&) {
            // Nothing to deliver: the user asked to stop; what arrived before stays.
        } catch (const std::exception& e) {
            fail(store + ": " + e.what());
        }
    }));
}

void Session::acceptLoaded(const LoadResult& result) {
    if (result.generation != m_generation)
        return;  // a project that is no longer open
    if (!result.error.isEmpty()) {
        emit loadError(result.error);
        return;
    }
    ProjectWorkload entry;
    entry.name = QString::fromStdString(result.workload->name);
    entry.origin = result.workload->device.empty()
                       ? tr("profile")
                       : QString::fromStdString(result.workload->device);
    entry.workload = result.workload;
    entry.breakdown = result.breakdown;
    m_sources << QString::fromStdString(result.workload->source);
    // Re-importing the same bytes replaces the row instead of adding a twin.
    auto same = std::find_if(m_workloads.begin(), m_workloads.end(), [&](const ProjectWorkload& w) {
        return w.workload && w.workload->sourceHash == result.workload->sourceHash;
    });
    if (same != m_workloads.end())
        *same = std::move(entry);
    else
        m_workloads.push_back(std::move(entry));
    emit workloadsChanged();
    if (result.breakdown->rulesHash != m_rules.hash())
        startReclassify();
}

void Session::startReclassify() {
    std::vector<std::shared_ptr<const Workload>> inputs;
    for (const ProjectWorkload& w : m_workloads) {
        if (w.workload)
            inputs.push_back(w.workload);
    }
    if (inputs.empty())
        return;
    const int id = ++m_reclassifyId;
    const int generation = m_generation;
    std::stop_source stop;
    m_stops.push_back(stop);
    ++m_activeJobs;
    emit jobStarted(tr("Classifying kernels"));

    auto* watcher = new QFutureWatcher<ReclassifyResult>(this);
    connect(watcher, &QFutureWatcher<ReclassifyResult>::finished, this,
            [this, watcher, inputs, generation] {
                watcher->deleteLater();
                const bool current = watcher->future().resultCount() > 0 &&
                                     generation == m_generation &&
                                     watcher->future().result().id == m_reclassifyId;
                if (current) {
                    const ReclassifyResult r = watcher->future().result();
                    for (size_t i = 0; i < inputs.size(); ++i) {
                        for (ProjectWorkload& w : m_workloads) {
                            if (w.workload == inputs[i])
                                w.breakdown = r.breakdowns[i];
                        }
                    }
                    emit workloadsChanged();
                }
                jobEnded();
            });
    const RuleSet rules = m_rules;
    const std::stop_token token = stop.get_token();
    watcher->setFuture(
        QtConcurrent::run([inputs, rules, id, token](QPromise<ReclassifyResult>& promise) {
            ReclassifyResult r;
            r.id = id;
            for (const auto& w : inputs) {
                if (token.stop_requested())
                    return;
                r.breakdowns.push_back(classify(*w, rules));
            }
            promise.addResult(std::move(r));
        }));
}

}  // namespace reach
