#pragma once

#include <QDialog>
#include <QList>
#include <QString>
#include <QStringList>

class QComboBox;
class QFormLayout;
class QLineEdit;
class QPlainTextEdit;
class QProcess;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTimer;
class QVBoxLayout;
class QLabel;

namespace reach {

class VerifyQueue;

// What a Slurm batch from the GUI is submitted with (reach-cli verify --batch ... --slurm).
struct SlurmForm {
    QString project;  // the open .reach project: its records are the jobs, results go back in
    QString selection = QStringLiteral("all");  // "all", "suspicious", "unverified"
    QString partition;
    QString gres = QStringLiteral("gpu:1");
    QString time;
    int arrayLimit = 0;
    int jobsPerTask = 0;
    QString directory;  // the batch directory; empty: beside the project
};

// Batch verification from the GUI (docs/batch.md). "This machine": how many workers the
// verifier queue runs (one per GPU, or N per GPU) and their progress, GPU by GPU. "Slurm": the
// open project's records as one Slurm job array, watched until every task ended; results are
// imported into the project as they land (projectChanged tells the window to show them), and the
// tasks that ended unfinished can be resubmitted. Slurm is driven by reach-cli (the same code as
// the command line) in a child process, so the GUI never blocks on sbatch or squeue.
class BatchDialog : public QDialog {
    Q_OBJECT
public:
    BatchDialog(VerifyQueue* queue, const QString& project, QWidget* parent = nullptr);

    // reach-cli beside the GUI, else on PATH; tests give a stand-in.
    void setCliProgram(const QString& program) { m_cli = program; }
    static QString defaultCliProgram();
    static QStringList slurmArguments(const SlurmForm& form);
    SlurmForm form() const;

    // Applies "GPUs" and "per GPU" to the queue (and keeps them in the settings).
    void applySlots();
    void startSlurm(const QStringList& arguments);
    QString slurmLog() const;

    // The saved GPU slots (verify/gpus, verify/jobsPerGpu), for the window to restore at start.
    static void restoreSlots(VerifyQueue* queue);

signals:
    void projectChanged(const QString& project);
    void slurmFinished(int exitCode);

private:
    QWidget* createLocalTab(QWidget* tabs);
    // Fills "GPUs" with every GPU reach-verify --device-info counts (or says why there is none).
    void detectGpus(QPushButton* detect);
    QWidget* createSlurmTab(QWidget* tabs);
    QFormLayout* createSlurmForm(QWidget* slurm);
    void connectSlurmButtons();
    // reach-cli's arguments to watch or resubmit (`option`) the batch folder; empty when the
    // user chose none.
    QStringList folderArguments(const char* option);
    void rebuildSlotBars();
    void onSlotProgress(int slot, const QString& gpu, int done, const QString& runningKey);
    void onSlurmOutput();

    VerifyQueue* m_queue;
    QString m_project;
    QString m_cli;
    QLineEdit* m_gpus = nullptr;
    QSpinBox* m_perGpu = nullptr;
    QVBoxLayout* m_barsLayout = nullptr;
    QList<QProgressBar*> m_bars;
    QComboBox* m_selection = nullptr;
    QLineEdit* m_partition = nullptr;
    QLineEdit* m_gres = nullptr;
    QLineEdit* m_time = nullptr;
    QSpinBox* m_arrayLimit = nullptr;
    QSpinBox* m_jobsPerTask = nullptr;
    QLineEdit* m_directory = nullptr;
    QPushButton* m_submit = nullptr;
    QPushButton* m_watch = nullptr;
    QPushButton* m_resubmit = nullptr;
    QLabel* m_slurmStatus = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QProcess* m_process = nullptr;
    QTimer* m_changed = nullptr;
    QByteArray m_pendingOut;
};

}  // namespace reach
