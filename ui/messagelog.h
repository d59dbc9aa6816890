#pragma once

#include <QDateTime>
#include <QDockWidget>
#include <QString>
#include <vector>

class QPlainTextEdit;

namespace reach {

// Everything the session told the user (load errors, warnings, what was exported), in order,
// with the time it happened: the one place to read again a message the bar no longer shows.
class MessageLog : public QDockWidget {
    Q_OBJECT
public:
    enum class Severity { Info, Warning, Error };
    struct Entry {
        QDateTime when;
        Severity severity = Severity::Info;
        QString text;
    };

    explicit MessageLog(QWidget* parent = nullptr);

    void append(Severity severity, const QString& text);
    const std::vector<Entry>& entries() const { return m_entries; }
    int count(Severity severity) const;
    QString text() const;  // what the panel shows

private:
    std::vector<Entry> m_entries;
    QPlainTextEdit* m_view;
};

}  // namespace reach
