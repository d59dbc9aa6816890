#pragma once

#include <QByteArray>
#include <QDialog>
#include <QString>
#include <QStringList>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProcess;
class QPushButton;
class QSpinBox;

namespace reach {

// What File > Profile a command... records: a Python workload under the profiler, as extraction
// needs it (docs/capture.md).
struct ProfileForm {
    QString python = QStringLiteral("python3");
    QString script;
    QString arguments;  // split at spaces, "double quotes" keep words together (splitCommand)
    QString device = QStringLiteral("cuda");
    int warmup = 2;
    int steps = 5;
    QString trace;  // where the trace goes; empty: beside the script, named by reach-cli
};

// File > Profile a command...: `reach-cli profile` (the same code as the command line) in a child
// process, its progress in the log as it runs, Cancel, and at the end what the recording serves
// (the breakdown, what extraction would cover, what to change). A GPU recording is handed to the
// window to open (traceReady); a CPU recording has no GPU time to show and says so.
class ProfileDialog : public QDialog {
    Q_OBJECT
public:
    explicit ProfileDialog(QWidget* parent = nullptr);

    void setCliProgram(const QString& program) { m_cli = program; }
    ProfileForm form() const;
    void setForm(const ProfileForm& form);
    // reach-cli's arguments for a form: `profile ... --json -- PYTHON SCRIPT ARGS`.
    static QStringList arguments(const ProfileForm& form);

    void start();
    void cancel();
    bool running() const;
    QString log() const;
    QString status() const;

signals:
    void traceReady(const QString& trace);
    void finished(int exitCode);

private:
    void onStderr();
    void onFinished(int exitCode);
    void setRunning(bool running);

    QString m_cli;
    QLineEdit *m_python, *m_script, *m_args, *m_trace;
    QComboBox* m_device;
    QSpinBox *m_warmup, *m_steps;
    QPlainTextEdit* m_log;
    QLabel* m_status;
    QPushButton *m_run, *m_cancel;
    QProcess* m_process = nullptr;
    QByteArray m_pendingErr;
    bool m_cancelled = false;
};

}  // namespace reach
