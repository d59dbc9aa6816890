#pragma once

#include <QFrame>
#include <QString>

#include "ui/messagelog.h"

class QLabel;
class QToolButton;

namespace reach {

// A dismissable bar above the views with the latest message that needs the user's eye (a file
// that could not be read, a rule that was refused): the error line exactly as reach-cli prints
// it, how many more arrived meanwhile, a button to the full log and one to close it. The bar is
// one line high whatever the message (a hostile file's name can be thousands of characters,
// and a taller bar pushed the status bar off a 720 px screen, issue 40): a longer line is
// elided in its middle, whole in the tooltip and in the log.
class MessageBar : public QFrame {
    Q_OBJECT
public:
    explicit MessageBar(QWidget* parent = nullptr);

    void showMessage(MessageLog::Severity severity, const QString& text);
    QString text() const;  // the message shown (without the "n more" note)
    MessageLog::Severity severity() const { return m_severity; }

public slots:
    void dismiss();

signals:
    void logRequested();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void applyColours();
    void showText();  // m_text, elided to the label's width

    QLabel* m_label;
    QLabel* m_more;
    QToolButton* m_log;
    QToolButton* m_close;
    QString m_text;
    MessageLog::Severity m_severity = MessageLog::Severity::Info;
    int m_unseen = 0;  // messages that arrived while this one was shown
};

}  // namespace reach
