#pragma once

#include <QMainWindow>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

#include "core/project/figuredata.h"
#include "ui/figure/figureexporter.h"
#include "ui/messagelog.h"

class QAbstractItemModel;
class QCustomPlot;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTabWidget;

namespace reach {

class BreakdownView;
class GuideDialog;
class ProfileDialog;
class RankRunDialog;
class ProjectBrowser;
class ProjectionView;
class RooflineView;
class Session;
class SpeedupView;
class MessageBar;
class VerifyQueue;

// The workbench window: project browser on the left, the views in tabs, File menu (open,
// import, recent files, export figure / CSV), status bar with the GPU state and background job
// progress + Cancel. Layout, last project, recent files and export settings persist (QSettings).
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // One tab: its key (file name of its snapshot), the plot that "Export figure" writes and the
    // model that "Export data" writes.
    struct View {
        QString key;
        QString title;
        QWidget* widget = nullptr;
        QCustomPlot* figure = nullptr;
        QAbstractItemModel* data = nullptr;
        std::function<FigureTable()> figureData;  // what the figure plots (its CSV)
    };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    Session* session() const { return m_session; }
    BreakdownView* breakdownView() const { return m_breakdown; }
    ProjectionView* projectionView() const { return m_projection; }
    SpeedupView* speedupView() const { return m_speedups; }
    RooflineView* rooflineView() const { return m_roofline; }
    ProjectBrowser* browser() const { return m_browser; }
    MessageBar* messageBar() const { return m_messageBar; }
    MessageLog* messageLog() const { return m_log; }
    QTabWidget* tabs() const { return m_tabs; }
    const std::vector<View>& views() const { return m_views; }
    QString gpuText() const;
    bool isGpuChecked() const { return m_gpuChecked; }  // reach-verify has answered

    // Opens the sample project (no path) or a project/directory/profile; records recent files.
    bool openDefault();
    bool openPath(const QString& path);
    // Profiles, published tables and records files go to the session (core decides which is
    // which); a .reach project is opened instead.
    void importFiles(const QStringList& paths);
    // The current view's table as CSV, each number column's unit in its header ("(fraction of
    // 1)", "(%)", "(ms)"); a path without an extension gets ".csv" (`written` says the path).
    bool exportData(const QString& path, QString* error = nullptr,
                    QString* written = nullptr) const;
    // Writes the current view's figure (+ CSV + provenance); `written` gets the paths and any
    // warnings (a substituted font). A path without an extension is written as PDF.
    // figureKey "headroom": the breakdown's headroom bars (its context menu, File menu), which
    // share the breakdown's tab.
    bool exportFigure(const QString& path, QString* error = nullptr, QStringList* written = nullptr,
                      QStringList* warnings = nullptr, const QString& figureKey = {}) const;
    // What File > Export Figure does once the user has picked `path` and its type: a name
    // without an extension gets the type's, then the figure is written and the user told how it
    // went (the files written in the status bar and the log, warnings and errors in the bar).
    bool exportFigureAndReport(QString path, FigureFormat chosen = FigureFormat::Pdf,
                               const QString& figureKey = {});

    // File > Save Project As: the open project written to one .reach file (core's
    // saveProjectAs), which then is the open project's file; what was left out is reported.
    bool saveProjectAndReport(QString path);
    // File > Save (Ctrl+S): over the .reach project that is open, else as Save As. False when
    // nothing was saved (a dialog cancelled, an error reported).
    bool saveProject();
    // File > Save As: asks where (the last folder used), then saves.
    bool saveProjectAsAsked();

    // Help > Guide (F1): the guide, at `section` (a view's key), else at the current view's.
    void showGuide(const QString& section = {});
    GuideDialog* guide() const { return m_guide; }                    // null until first shown
    ProfileDialog* profileDialog() const { return m_profileDialog; }  // null until first shown
    // File > Open a Distributed Run... for these inputs (a folder of rank traces, or the files).
    RankRunDialog* openDistributedRun(const QStringList& inputs);

    // Asks what to do with rule edits that would be lost (save, discard, cancel); true: go on.
    bool confirmDiscardRuleEdits();
    // Asks what to do with imports, removals and renames no file holds (save the project,
    // discard, cancel); true: go on. Then the rule edits' question, where no project was saved.
    bool confirmDiscardChanges();
    // "Reach - <project>", marked while something would be lost on quitting.
    void updateTitle();
    // Puts a message in the session's log and, unless it is only information, in the bar.
    void report(MessageLog::Severity severity, const QString& text);

signals:
    void gpuChecked();  // reach-verify answered the device question (gpuText() is final)

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void addView(const QString& key, const QString& title, QWidget* widget, QCustomPlot* figure,
                 std::function<FigureTable()> figureData, QAbstractItemModel* data);
    void createMenus();
    void createStatusBar();
    void restoreSettings();
    void saveSettings() const;
    void rememberRecent(const QString& path);
    void rebuildRecentMenu();
    void setDark(bool dark);
    void onOpen();
    void onImport();
    // File > Profile a Command...: reach-cli profile in a dialog; a GPU recording is imported.
    void onProfileCommand();
    void onOpenDistributedRun();
    void openMappingDialog(const QString& path);
    void onExportFigure(const QString& figureKey = {});
    void onExportData();
    void updateRecordSets();
    void showEvaluation(int index);
    void onProjectOpened();
    QWidget* createCentralArea();

    Session* m_session;
    ProjectBrowser* m_browser;
    QTabWidget* m_tabs;
    QSplitter* m_split;
    BreakdownView* m_breakdown;
    ProjectionView* m_projection;
    SpeedupView* m_speedups;
    RooflineView* m_roofline;
    VerifyQueue* m_verifyQueue;
    std::vector<View> m_views;
    View m_headroomFigure;                     // a figure without a tab of its own
    GuideDialog* m_guide = nullptr;            // kept once made: reopening keeps its size and place
    ProfileDialog* m_profileDialog = nullptr;  // as the guide
    QMenu* m_recentMenu = nullptr;
    QLabel* m_gpuLabel = nullptr;
    QLabel* m_jobLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    MessageBar* m_messageBar = nullptr;
    MessageLog* m_log = nullptr;
    // The path (empty: the bundled sample) whose open is under way: it becomes the window title
    // and a recent file only once the session has shown it.
    std::optional<QString> m_opening;
    int m_errorsAtJobStart = 0;
    QString m_gpuText;
    bool m_gpuChecked = false;
};

}  // namespace reach
