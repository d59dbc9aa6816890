#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <optional>
#include <stop_token>
#include <vector>

#include "core/project/openplan.h"
#include "core/project/project.h"
#include "ui/qtstrings.h"

namespace reach {

// The open project as the GUI sees it: a thin Qt adapter over core/project (the same plan and
// reading steps every reach-cli subcommand uses), which runs the reading and re-classifying in
// the background. Lives on the GUI thread; jobs run on QtConcurrent's pool with copies of what
// they need, and their results come back as values. Results of a job that was superseded (a
// newer project, a newer rule edit) are dropped by id.
class Session : public QObject {
    Q_OBJECT
public:
    explicit Session(QObject* parent = nullptr);
    ~Session() override;

    const Project& project() const { return m_project; }
    const std::vector<ProjectWorkload>& workloads() const { return m_project.workloads; }
    const std::vector<EvaluationSet>& evaluations() const { return m_project.evaluations; }
    const RuleSet& rules() const { return m_project.rules; }
    QString projectName() const { return toQString(m_project.name); }
    QString storePath() const { return toQString(m_project.storePath); }
    QStringList inputFiles() const;  // every file the shown numbers come from

    // Opens the bundled sample (published study and evaluation sets at once, H200 profiles in the
    // background). Returns false with the error when its datasets cannot be found or read.
    bool openDefault(QString* error = nullptr);
    // A directory of profiles or of records, a `.reach` project, a published table, one profile.
    // An input that cannot be opened leaves the open project as it was: profiles alone (read in
    // the background) replace it only when the first of them has been read; when none can be,
    // openFailed() says so and the open project stays.
    bool openProject(const QString& path, QString* error = nullptr);
    // Adds inputs (profiles, published tables, records files) to the open project: what is small
    // at once, profiles in the background. An unreadable input emits loadError and adds nothing.
    // A records file in a shape no reader knows (core's needsColumnMapping) is not read: the
    // session emits mappingNeeded for it, and the window asks the user for a mapping.
    void importProfiles(const QStringList& paths);
    // Adds a records file read with `mapping`, through the plan and reader the CLI's
    // `speedups --map` uses (planOpen -> importMapped). All or nothing: a bad cell adds no record;
    // false with the one-line error (file, place, what was expected).
    bool importMapped(const QString& path, const ColumnMapping& mapping, QString* error = nullptr);
    void addEvaluationSet(EvaluationSet set);
    // The project browser's context menu. Renames are shown everywhere (views, figures); a
    // .reach file on disk is not changed by them.
    bool removeWorkload(int index);
    bool renameWorkload(int index, const QString& name);
    bool removeEvaluationSet(int index);
    bool renameEvaluationSet(int index, const QString& name);
    // A project read elsewhere (reach-cli figure reads it with core's openInputs, at once):
    // shown as it is, with nothing left to load in the background.
    void adoptLoaded(Project project);
    // The project was saved as `path` (Save Project As): it is now the open project's file,
    // which keeps later rule edits.
    void adoptStorePath(const QString& path);

    // Replaces the rule set and re-classifies every measured workload in the background.
    // With keepInProject, an open .reach project file also stores the rules (reopening it
    // restores them); `reach-cli figure --rules` passes false: a figure must not edit a project.
    void setRules(RuleSet rules, bool keepInProject = true);

    // A hand edit of the rules (the rule table, "Add rule"): renamed "<name> (edited)"
    // (core editedRuleSetName), undoable, and re-classified like setRules.
    void editRules(RuleSet rules);
    bool canUndoRuleEdit() const { return !m_undo.empty(); }
    bool canRedoRuleEdit() const { return !m_redo.empty(); }
    void undoRuleEdit();
    void redoRuleEdit();
    // Edits that exist nowhere but in this window: not saved to a rule file, and no .reach
    // project open that keeps them.
    // Hand edits that no file holds: the rule set differs from the one last loaded or saved
    // (undoing every edit leaves nothing unsaved).
    bool hasUnsavedRuleEdits() const;
    void markRulesSaved();
    // Workloads or evaluation sets imported, removed or renamed since the project was opened or
    // saved: quitting would lose them (issue 40). The rules' own edits are hasUnsavedRuleEdits.
    bool hasUnsavedContent() const { return m_contentChanged; }

    // What counts as a win in every evaluation set's summary (the Speedups view's "win
    // above"): the project browser, the projection's preset and the Speedups view then give
    // one answer (issue 40: raising it left the browser's win rate stale). Sets that come in
    // later are summarized with it too.
    void setWinThreshold(double threshold);
    double winThreshold() const { return m_winThreshold; }

    bool isBusy() const { return m_activeJobs > 0; }

public slots:
    void cancelJobs();

signals:
    void projectOpened();
    void workloadsChanged();
    void evaluationsChanged();
    void rulesChanged();
    void ruleHistoryChanged();  // undo/redo availability
    void jobStarted(const QString& label);
    void jobProgress(double fraction);
    void jobFinished();
    void idle();                               // no background job left
    void loadError(const QString& message);    // one line, as reach-cli prints it
    void loadWarning(const QString& message);  // loaded, with a problem (one line)
    void unsavedChanged(bool unsaved);         // hasUnsavedContent() || hasUnsavedRuleEdits()
    void openFailed();  // nothing of a pending open could be read; the open project stays
    void mappingNeeded(const QString& path);  // a records file that only a mapping can read

private:
    struct LoadResult;
    void adopt(OpenPlan plan);
    void addReadyParts(OpenPlan& plan);
    void install(Project project);
    void applyRules(RuleSet rules, bool keepInProject);
    void emitProjectReplaced();
    void setContentChanged(bool changed);
    // A file the open project was read from (the same file under any path).
    bool alreadyLoaded(const QString& path) const;
    // Each set with records summarized again at m_winThreshold (summarizeRecords, as loaded).
    void resummarize();
    void startRuleHistory();
    void startLoad(const QString& label, OpenPlan plan);
    void startReclassify();
    void acceptLoaded(const LoadResult& result);
    void jobEnded();

    Project m_project;
    bool m_contentChanged = false;
    double m_winThreshold = 1.0;
    // A project made only of profiles waits here until its first workload has been read.
    std::optional<Project> m_pending;
    std::vector<RuleSet> m_undo, m_redo;  // rule sets before (after) each hand edit
    std::string m_savedRules;             // ruleContent() of the set last loaded or saved

    // Every open/import belongs to a generation; opening a new project starts a new one and
    // cancels the jobs of the old one, whose late results are then ignored.
    int m_generation = 0;
    int m_reclassifyId = 0;
    int m_activeJobs = 0;
    std::vector<std::stop_source> m_stops;
};

}  // namespace reach
