#pragma once

#include <QPoint>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <optional>

#include "ui/models/recordsmodel.h"
#include "ui/plots/speedupplot.h"
#include "ui/verify/verifyqueue.h"

class QAction;
class QComboBox;
class QCustomPlot;
class QCPAbstractPlottable;
class QCPGraph;
class QCPItemText;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QMouseEvent;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace reach {

struct VerificationResult;

// The speedup distribution (SpeedupPlot) above the records table (RecordsModel). Clicking a point
// selects its record; "Re-verify" and "Re-verify all suspicious" send jobs to a VerifyQueue and
// the results come back into the model (and so into the plot and the table). The model is the
// single source of truth: the plot is rebuilt from it whenever it changes.
class SpeedupView : public QWidget {
    Q_OBJECT
public:
    // Finds the problem file and candidate source of a record; nullopt + reason when it cannot.
    using JobResolver = std::function<std::optional<VerifyJob>(const EvalRecord&, QString* why)>;

    explicit SpeedupView(QWidget* parent = nullptr);

    RecordsModel* model() const { return m_model; }
    QCustomPlot* plot() const { return m_plot; }
    QTableView* table() const { return m_table; }
    const SpeedupPlot& plotBuilder() const { return m_builder; }
    QAction* reverifyAction() const { return m_reverify; }
    QAction* reverifySuspiciousAction() const { return m_reverifySuspicious; }

    // The text the plot shows under the mouse at `pos` (plot pixels); empty over no point.
    QString tooltipAt(const QPoint& pos) const;
    // The ring drawn around the selected records' points (empty when nothing is selected).
    QCPGraph* selectionMarker() const { return m_selectionMarker; }
    // What the plot says when there are no records to draw (empty while there are).
    QString emptyText() const;
    QDoubleSpinBox* winThresholdBox() const { return m_threshold; }
    // A published evaluation set has a summary and no records: shown above the plot.
    void showSummary(const QString& text);
    QString summaryText() const;

    void setMode(SpeedupPlot::Mode mode);

public slots:
    // Follows the palette (View > Dark Palette): plot background, axes, text, the ring.
    void refreshStyle();

public:
    SpeedupPlot::Mode mode() const { return m_mode; }

    // The queue is shared with the rest of the GUI (the main window owns it).
    void setVerifyQueue(VerifyQueue* queue);
    void setJobResolver(JobResolver resolver) { m_resolver = std::move(resolver); }
    // Asked before the first run of sources Reach never ran (core/project/runconsent.h): the
    // files, absolute; true runs them. The default shows them in a dialog with Run / Cancel.
    using RunConsentAsker = std::function<bool(const QStringList& files)>;
    void setRunConsentAsker(RunConsentAsker asker) { m_askConsent = std::move(asker); }
    // The open .reach project: every verdict is stored there (verifications table, the record's
    // status). Empty: results stay in memory.
    void setProjectPath(const QString& path) { m_projectPath = path; }
    QString projectPath() const { return m_projectPath; }
    // Default resolver: candidate = the record's artifact path, problem = "<problem>.json" in a
    // "problems" folder beside the records file or beside the candidate.
    // The records' trusted folder is the open project's for a stored record, the opened
    // records file's otherwise (core RecordJobOptions::recordDir), never the stored source's.
    static std::optional<VerifyJob> defaultJob(const EvalRecord& record, QString* why);
    static std::optional<VerifyJob> defaultJob(const EvalRecord& record, const QString& projectPath,
                                               QString* why);

    // Selected records in the table (model rows mapped back from the sort proxy).
    std::vector<RecordRef> selectedRecords() const;
    void selectRecords(const std::vector<RecordRef>& refs);

    // Applies a verifier outcome to its record (also called for results loaded from a project).
    void applyOutcome(const VerifyOutcome& outcome);

    // Jobs sent for these records; returns how many were queued.
    int reverify(const std::vector<RecordRef>& refs);

signals:
    void recordsSelected(const std::vector<reach::RecordRef>& refs);
    // A verification that produced a verdict (the record already updated), for the main window
    // to store in the project (verifications table, the verifier's JSON verbatim).
    void verificationFinished(const reach::VerifyOutcome& outcome, const reach::EvalRecord& record);
    void statusMessage(const QString& text);

private:
    // The row above the plot: mode, win threshold, re-verify buttons, the queue's state.
    QHBoxLayout* createControlBar();
    void createReverifyActions();
    void createQueueStatus();  // why verification is unavailable, progress, Cancel
    void createWinThreshold();
    void createPlot();
    void createTable();
    void rebuild();
    void updateActions();
    void onPlottableClick(QCPAbstractPlottable* plottable, int dataIndex, QMouseEvent* event);
    bool consentToRun(const QList<VerifyJob>& jobs);
    bool askToRun(const QStringList& files);
    void markSelection();
    void showEmptyState();

    RecordsModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QCustomPlot* m_plot = nullptr;
    QTableView* m_table = nullptr;
    QComboBox* m_modeBox = nullptr;
    QDoubleSpinBox* m_threshold = nullptr;
    QLabel* m_summary = nullptr;
    QCPGraph* m_selectionMarker = nullptr;
    QCPItemText* m_emptyText = nullptr;
    std::vector<RecordRef> m_markedRefs;  // the records behind the ring's points, in order
    QLabel* m_gpuLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QAction* m_reverify = nullptr;
    QAction* m_reverifySuspicious = nullptr;
    SpeedupPlot m_builder;
    SpeedupPlot::Mode m_mode = SpeedupPlot::Mode::Strip;
    VerifyQueue* m_queue = nullptr;
    JobResolver m_resolver = [this](const EvalRecord& r, QString* why) {
        return defaultJob(r, m_projectPath, why);
    };
    RunConsentAsker m_askConsent;
    QString m_projectPath;
};

}  // namespace reach
