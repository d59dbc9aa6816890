#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <stop_token>
#include <vector>

#include "core/analysis/ruleset.h"
#include "projectdata.h"

namespace reach {

// The open project as the GUI sees it: workloads, evaluation sets and the rule set, plus the
// background jobs that read profiles and re-classify them. Lives on the GUI thread; jobs run
// on QtConcurrent's pool with copies of what they need, and their results come back as values.
// Results of a job that was superseded (a newer project, a newer rule edit) are dropped by id.
class Session : public QObject {
    Q_OBJECT
public:
    explicit Session(QObject* parent = nullptr);
    ~Session() override;

    const std::vector<ProjectWorkload>& workloads() const { return m_workloads; }
    const std::vector<EvaluationSummary>& evaluations() const { return m_evaluations; }
    const RuleSet& rules() const { return m_rules; }
    QString projectName() const { return m_projectName; }
    QStringList inputFiles() const;  // every file the shown numbers come from

    // Opens the bundled sample (published study at once, H200 profiles in the background).
    // Returns false with an error message when the datasets cannot be found or read.
    bool openDefault(QString* error = nullptr);
    // A directory of profiles, a `.reach` project, or one profile file.
    bool openProject(const QString& path, QString* error = nullptr);
    // Adds profiles (read in the background) to the open project.
    // Profiles load in the background; a published study file (table3.json's format) is read
    // at once and adds its workloads and benchmark summaries, or emits loadError and adds
    // nothing.
    void importProfiles(const QStringList& paths);
    void addEvaluationSet(EvaluationSummary set);

    // Replaces the rule set and re-classifies every measured workload in the background.
    // With keepInProject, an open .reach project file also stores the rules (reopening it
    // restores them); `reach-cli figure --rules` passes false: a figure must not edit a project.
    void setRules(RuleSet rules, bool keepInProject = true);

    bool isBusy() const { return m_activeJobs > 0; }

public slots:
    void cancelJobs();

signals:
    void projectOpened();
    void workloadsChanged();
    void evaluationsChanged();
    void rulesChanged();
    void jobStarted(const QString& label);
    void jobProgress(double fraction);
    void jobFinished();
    void idle();  // no background job left
    void loadError(const QString& message);

private:
    struct LoadResult;
    void resetProject(const QString& name);
    void startLoad(const QString& label, const QStringList& profiles, const QString& storePath);
    void startReclassify();
    void acceptLoaded(const LoadResult& result);
    void jobEnded();

    std::vector<ProjectWorkload> m_workloads;
    std::vector<EvaluationSummary> m_evaluations;
    RuleSet m_rules;
    QString m_projectName;
    QString m_storePath;  // the open .reach file, where edited rules are kept; empty otherwise
    QStringList m_sources;

    // Every open/import belongs to a generation; opening a new project starts a new one and
    // cancels the jobs of the old one, whose late results are then ignored.
    int m_generation = 0;
    int m_reclassifyId = 0;
    int m_activeJobs = 0;
    std::vector<std::stop_source> m_stops;
};

}  // namespace reach
