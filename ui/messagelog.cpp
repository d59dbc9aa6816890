#include "ui/messagelog.h"

#include <QPlainTextEdit>
#include <algorithm>

namespace reach {

namespace {

QString severityWord(MessageLog::Severity s) {
    switch (s) {
        case MessageLog::Severity::Error:
            return QObject::tr("error");
        case MessageLog::Severity::Warning:
            return QObject::tr("warning");
        case MessageLog::Severity::Info:
            break;
    }
    return QObject::tr("info");
}

}  // namespace

MessageLog::MessageLog(QWidget* parent) : QDockWidget(tr("Messages"), parent) {
    setObjectName(QStringLiteral("messageLog"));  // saveState() needs a name
    m_view = new QPlainTextEdit(this);
    m_view->setReadOnly(true);
    m_view->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_view->setPlaceholderText(
        tr("Load errors, warnings and exports of this session appear here."));
    setWidget(m_view);
}

void MessageLog::append(Severity severity, const QString& text) {
    m_entries.push_back({QDateTime::currentDateTime(), severity, text});
    m_view->appendPlainText(QStringLiteral("%1  %2: %3")
                                .arg(m_entries.back().when.toString(QStringLiteral("HH:mm:ss")),
                                     severityWord(severity), text));
}

int MessageLog::count(Severity severity) const {
    return int(std::count_if(m_entries.begin(), m_entries.end(),
                             [severity](const Entry& e) { return e.severity == severity; }));
}

QString MessageLog::text() const {
    return m_view->toPlainText();
}

}  // namespace reach
