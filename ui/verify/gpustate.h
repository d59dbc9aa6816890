#pragma once

#include <QObject>
#include <QString>

class QProcess;

namespace reach {

// What the status bar says about the GPU. The GUI never loads CUDA: it asks the verifier
// (`reach-verify --device-info`, the same answer every verification gets) in a child process;
// "no GPU" and "no reach-verify" are ordinary answers.
struct GpuState {
    bool checked = false;  // false until the verifier answered
    QString device;        // "NVIDIA H200 (sm_90)", empty when none
    QString reason;        // why not, when not
    bool verifierFound = false;
    bool available() const { return !device.isEmpty() && verifierFound; }
    QString text() const;  // "GPU: NVIDIA H200 (sm_90)" / "no GPU" / "checking GPU..."
};

// Why verification cannot run here, as a sentence that says what to do (the verifier's own words,
// such as "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version", end
// it in parentheses). Everything but verification still works, and the sentence says so.
QString noGpuAdvice(const QString& reason);

// Reads what `reach-verify --device-info` printed (its "device" JSON object) and how it exited.
GpuState gpuStateFromDeviceInfo(const QByteArray& stdoutJson, bool verifierStarted);

// Runs `reach-verify --device-info` in the background and reports once.
class GpuProbe : public QObject {
    Q_OBJECT
public:
    explicit GpuProbe(QObject* parent = nullptr);
    // A window closed (or a load refused) before the answer: the probe is killed and reaped,
    // not left running behind a destroyed QProcess.
    ~GpuProbe() override;
    void start(const QString& verifier);

signals:
    void finished(const reach::GpuState& state);

private:
    QProcess* m_process = nullptr;
};

}  // namespace reach
