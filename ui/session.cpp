#include "ui/session.h"

#include <filesystem>

#include <QFileInfo>
#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include "core/analysis/ruleedit.h"
#include "core/base/inputerror.h"
#include "core/records/recordimportkernelbench.h"
#include "core/store/projectstore.h"

namespace reach {

struct Session::LoadResult {
    int generation = 0;
    LoadedWorkload loaded;
    QString error;  // one line, naming the file; empty on success
};

namespace {

struct ReclassifyResult {
    int id = 0;
    std::vector<std::shared_ptr<const Breakdown>> breakdowns;  // parallel to the inputs
};

// What a rule set says, whatever it is called: an edit renames the set ("... (edited)"), and
// undoing every edit must compare equal to the set as it was loaded.
std::string ruleContent(RuleSet rules) {
    rules.setName("");
    return rules.toJson();
}

}  // namespace

Session::Session(QObject* parent) : QObject(parent), m_savedRules(ruleContent(m_project.rules)) {}

Session::~Session() {
    cancelJobs();
}

QStringList Session::inputFiles() const {
    QStringList out;
    for (const std::string& s : m_project.sources)
        out << toQString(s);
    return out;
}

// A plan made without error replaces the open project: its small parts at once, its workloads
// in the background. A plan of profiles only has nothing to show until one is read, so the open
// project stays on show until then (a truncated profile then costs the user nothing).
void Session::adopt(OpenPlan plan) {
    cancelJobs();
    ++m_generation;
    m_pending.reset();
    Project fresh;
    fresh.name = plan.projectName;
    fresh.storePath = plan.storePath;
    fresh.rules = plan.storedRules ? *plan.storedRules : m_project.rules;
    fresh.workloads = std::move(plan.published);
    fresh.evaluations = std::move(plan.evaluations);
    fresh.sources = plan.sources;
    fresh.studies = plan.studies;
    for (const std::string& w : plan.warnings)
        emit loadWarning(toQString(w));
    const bool profilesOnly = fresh.workloads.empty() && fresh.evaluations.empty() &&
                              plan.stores.empty() && !plan.profiles.empty();
    if (profilesOnly)
        m_pending = std::move(fresh);
    else
        install(std::move(fresh));
    if (plan.hasWorkloadsToRead()) {
        startLoad(plan.stores.empty() ? tr("Reading profiles") : tr("Opening project"),
                  std::move(plan));
    }
}

void Session::install(Project project) {
    const bool rulesChangedNow = project.rules.hash() != m_project.rules.hash() ||
                                 project.rules.name() != m_project.rules.name();
    m_project = std::move(project);
    if (m_winThreshold != 1.0)
        resummarize();
    startRuleHistory();
    if (rulesChangedNow)
        emit rulesChanged();
    emitProjectReplaced();
}

void Session::emitProjectReplaced() {
    setContentChanged(false);
    emit projectOpened();
    emit workloadsChanged();
    emit evaluationsChanged();
}

bool Session::openDefault(QString* error) {
    try {
        adopt(planSample());
    } catch (const InputError& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

bool Session::openProject(const QString& path, QString* error) {
    // Everything small (evaluation sets, a project's rules) is read here, before anything of the
    // open project is dropped: an input that cannot be read leaves the current one as it was.
    try {
        adopt(planOpen({path.toStdString()}));
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

// What a plan holds ready (published workloads, evaluation sets) joins the open project at once.
void Session::addReadyParts(OpenPlan& plan) {
    for (ProjectWorkload& w : plan.published)
        m_project.workloads.push_back(std::move(w));
    for (EvaluationSet& e : plan.evaluations)
        m_project.evaluations.push_back(std::move(e));
    if (m_winThreshold != 1.0 && !plan.evaluations.empty())
        resummarize();
    for (std::string& s : plan.sources)
        m_project.sources.push_back(std::move(s));
    for (const std::string& w : plan.warnings)
        emit loadWarning(toQString(w));
    if (!plan.published.empty())
        emit workloadsChanged();
    if (!plan.evaluations.empty())
        emit evaluationsChanged();
}

bool Session::alreadyLoaded(const QString& path) const {
    std::error_code ec;
    for (const std::string& source : m_project.sources)
        if (std::filesystem::equivalent(source, path.toStdString(), ec))
            return true;
    return false;
}

void Session::importProfiles(const QStringList& paths) {
    // KernelBench's baseline timing files go with the run results imported beside them (the
    // CLI's --baseline); alone they are no input of their own.
    OpenOptions options;
    QStringList inputs;
    for (const QString& path : paths) {
        if (looksLikeKernelBenchBaseline(path.toStdString()))
            options.records.kernelBench.baselines.push_back({path.toStdString()});
        else
            inputs << path;
    }
    if (inputs.isEmpty() && !paths.isEmpty())
        emit loadError(tr("%1: a KernelBench baseline timing file: import it together with the "
                          "run's eval_results.json")
                           .arg(paths.front()));
    OpenPlan all;
    for (const QString& path : inputs) {
        if (alreadyLoaded(path)) {
            emit loadWarning(tr("%1: already in the project; not imported again (its GPU time "
                                "would count twice)")
                                 .arg(path));
            continue;
        }
        try {
            if (needsColumnMapping(path.toStdString())) {
                emit mappingNeeded(path);
                continue;
            }
            OpenPlan one = planOpen({path.toStdString()}, options);
            const bool adds =
                !one.published.empty() || !one.evaluations.empty() || one.hasWorkloadsToRead();
            addReadyParts(one);
            if (adds)
                setContentChanged(true);
            for (std::string& p : one.profiles)
                all.profiles.push_back(std::move(p));
            for (std::string& s : one.stores)
                all.stores.push_back(std::move(s));
        } catch (const std::exception& e) {
            emit loadError(QString::fromUtf8(e.what()));
        }
    }
    emit workloadsChanged();
    emit evaluationsChanged();
    if (all.hasWorkloadsToRead()) {
        const int n = int(all.profiles.size());
        startLoad(n == 0   ? tr("Importing a project")
                  : n == 1 ? tr("Importing 1 profile")
                           : tr("Importing %1 profiles").arg(n),
                  std::move(all));
    }
}

bool Session::importMapped(const QString& path, const ColumnMapping& mapping, QString* error) {
    OpenOptions options;
    options.records.mapping = mapping;
    try {
        // Read whole before anything is added: a bad row leaves the project as it was.
        OpenPlan plan = planOpen({path.toStdString()}, options);
        addReadyParts(plan);
        setContentChanged(true);
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

void Session::adoptLoaded(Project project) {
    cancelJobs();
    ++m_generation;
    m_pending.reset();
    m_project = std::move(project);
    if (m_winThreshold != 1.0)
        resummarize();
    startRuleHistory();
    emit rulesChanged();
    emitProjectReplaced();
}

void Session::addEvaluationSet(EvaluationSet set) {
    m_project.evaluations.push_back(std::move(set));
    if (m_winThreshold != 1.0)
        resummarize();
    setContentChanged(true);
    emit evaluationsChanged();
}

bool Session::removeWorkload(int index) {
    if (index < 0 || index >= int(m_project.workloads.size()))
        return false;
    m_project.workloads.erase(m_project.workloads.begin() + index);
    setContentChanged(true);
    emit workloadsChanged();
    return true;
}

bool Session::renameWorkload(int index, const QString& name) {
    if (index < 0 || index >= int(m_project.workloads.size()) || name.trimmed().isEmpty())
        return false;
    m_project.workloads[size_t(index)].name = name.trimmed().toStdString();
    setContentChanged(true);
    emit workloadsChanged();
    return true;
}

bool Session::removeEvaluationSet(int index) {
    if (index < 0 || index >= int(m_project.evaluations.size()))
        return false;
    m_project.evaluations.erase(m_project.evaluations.begin() + index);
    setContentChanged(true);
    emit evaluationsChanged();
    return true;
}

bool Session::renameEvaluationSet(int index, const QString& name) {
    if (index < 0 || index >= int(m_project.evaluations.size()) || name.trimmed().isEmpty())
        return false;
    m_project.evaluations[size_t(index)].name = name.trimmed().toStdString();
    setContentChanged(true);
    emit evaluationsChanged();
    return true;
}

void Session::startRuleHistory() {
    // Another project's rules: the last one's edits cannot be undone into it.
    m_undo.clear();
    m_redo.clear();
    m_savedRules = ruleContent(m_project.rules);
    emit ruleHistoryChanged();
}

void Session::adoptStorePath(const QString& path) {
    m_project.storePath = path.toStdString();
    m_project.name = QFileInfo(path).fileName().toStdString();
    markRulesSaved();
    setContentChanged(false);
}

void Session::setWinThreshold(double threshold) {
    if (!(threshold > 0) || threshold == m_winThreshold)
        return;
    m_winThreshold = threshold;
    resummarize();
    emit evaluationsChanged();
}

void Session::resummarize() {
    for (EvaluationSet& set : m_project.evaluations) {
        if (set.published || set.records.empty())
            continue;
        StatsOptions options;
        options.winThreshold = m_winThreshold;
        if (set.denominator != set.attempted)
            options.denominator = set.denominator;  // a set counted over a given denominator
        EvaluationSet again = summarizeRecords(std::move(set.name), std::move(set.origin),
                                               std::move(set.records), set.basis, options);
        again.storeId = set.storeId;
        set = std::move(again);
    }
}

void Session::setContentChanged(bool changed) {
    m_contentChanged = changed;
    emit unsavedChanged(m_contentChanged || hasUnsavedRuleEdits());
}

bool Session::hasUnsavedRuleEdits() const {
    return m_project.storePath.empty() && ruleContent(m_project.rules) != m_savedRules;
}

void Session::markRulesSaved() {
    m_savedRules = ruleContent(m_project.rules);
}

void Session::setRules(RuleSet rules, bool keepInProject) {
    // A rule set loaded or restored as a whole starts a new history.
    m_undo.clear();
    m_redo.clear();
    m_savedRules = ruleContent(rules);
    emit ruleHistoryChanged();
    applyRules(std::move(rules), keepInProject);
}

void Session::editRules(RuleSet rules) {
    rules.setName(editedRuleSetName(rules.name()));
    m_undo.push_back(m_project.rules);
    m_redo.clear();
    emit ruleHistoryChanged();
    applyRules(std::move(rules), true);
}

void Session::undoRuleEdit() {
    if (m_undo.empty())
        return;
    m_redo.push_back(m_project.rules);
    RuleSet previous = std::move(m_undo.back());
    m_undo.pop_back();
    emit ruleHistoryChanged();
    applyRules(std::move(previous), true);
}

void Session::redoRuleEdit() {
    if (m_redo.empty())
        return;
    m_undo.push_back(m_project.rules);
    RuleSet next = std::move(m_redo.back());
    m_redo.pop_back();
    emit ruleHistoryChanged();
    applyRules(std::move(next), true);
}

void Session::applyRules(RuleSet rules, bool keepInProject) {
    m_project.rules = std::move(rules);
    // An open project file keeps the edited rules, so reopening it shows the same numbers. A
    // failed save is reported; the edit itself stays in effect.
    if (keepInProject && !m_project.storePath.empty()) {
        try {
            ProjectStore project =
                ProjectStore::open(m_project.storePath, ProjectStore::Mode::MustExist);
            project.saveRuleSet(m_project.rules);
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

void Session::startLoad(const QString& label, OpenPlan plan) {
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
    connect(watcher, &QFutureWatcher<LoadResult>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation == m_generation && m_pending) {
            m_pending.reset();  // not one profile could be read (or the user cancelled)
            emit openFailed();
        }
        jobEnded();
    });
    // The job gets copies: the rule set may change on the GUI thread while it runs (the
    // breakdown then carries the old hash and is re-classified on arrival).
    const RuleSet rules = m_project.rules;
    const std::stop_token token = stop.get_token();
    watcher->setFuture(QtConcurrent::run(
        [plan = std::move(plan), rules, token, generation](QPromise<LoadResult>& promise) {
            promise.setProgressRange(0, 1000);
            auto send = [&](LoadResult r) {
                r.generation = generation;
                promise.addResult(std::move(r));
            };
            try {
                readPlanWorkloads(
                    plan, rules,
                    [&](LoadedWorkload w) {
                        send({0, std::move(w), {}});
                    },
                    [&](const InputError& e) {
                        send({0, {}, QString::fromUtf8(e.what())});
                    },
                    [&](double f) { promise.setProgressValue(int(1000.0 * f)); }, token);
            } catch (const Cancelled&) {
                // Nothing more to deliver: the user asked to stop; what arrived before stays.
            } catch (const std::exception& e) {
                send({0, {}, QString::fromUtf8(e.what())});
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
    if (m_pending) {
        install(std::move(*m_pending));
        m_pending.reset();
    }
    const bool stale = result.loaded.breakdown->rulesHash != m_project.rules.hash();
    m_project.addMeasured(measuredWorkload(result.loaded.workload, result.loaded.breakdown));
    emit workloadsChanged();
    if (stale)
        startReclassify();
}

void Session::startReclassify() {
    const std::vector<std::shared_ptr<const Workload>> inputs = m_project.measured();
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
                        for (ProjectWorkload& w : m_project.workloads) {
                            if (w.workload == inputs[i])
                                w.breakdown = r.breakdowns[i];
                        }
                    }
                    emit workloadsChanged();
                }
                jobEnded();
            });
    const RuleSet rules = m_project.rules;
    const std::stop_token token = stop.get_token();
    watcher->setFuture(QtConcurrent::run([inputs, rules, id,
                                          token](QPromise<ReclassifyResult>& promise) {
        ReclassifyResult r;
        r.id = id;
        for (const auto& w : inputs) {
            if (token.stop_requested())
                return;
            r.breakdowns.push_back(std::make_shared<const Breakdown>(computeBreakdown(*w, rules)));
        }
        promise.addResult(std::move(r));
    }));
}

}  // namespace reach
