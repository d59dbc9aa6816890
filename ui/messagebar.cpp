#include "ui/messagebar.h"

#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>
#include <algorithm>

namespace reach {

MessageBar::MessageBar(QWidget* parent) : QFrame(parent) {
    setObjectName(QStringLiteral("messageBar"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_label = new QLabel(this);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);  // copy the error line
    // One line, elided to the width it is given (showText): a long line never widens or heightens
    // the window.
    m_label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    // A message may quote a stranger's file name: shown as text, never as HTML.
    m_label->setTextFormat(Qt::PlainText);
    m_label->setMinimumWidth(80);
    m_more = new QLabel(this);
    m_log = new QToolButton(this);
    m_log->setText(tr("Show Log"));
    m_log->setToolTip(tr("Every message of this session"));
    m_close = new QToolButton(this);
    m_close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    m_close->setToolTip(tr("Dismiss"));
    m_close->setAutoRaise(true);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_more);
    layout->addWidget(m_log);
    layout->addWidget(m_close);
    connect(m_close, &QToolButton::clicked, this, &MessageBar::dismiss);
    connect(m_log, &QToolButton::clicked, this, &MessageBar::logRequested);
    hide();
}

void MessageBar::showMessage(MessageLog::Severity severity, const QString& text) {
    // An error is not pushed away by a later, milder message: the first error stays in view,
    // and the count says that more arrived (all of them are in the log).
    if (!isHidden() && m_severity == MessageLog::Severity::Error &&
        severity != MessageLog::Severity::Error) {
        ++m_unseen;
    } else {
        if (!isHidden())
            ++m_unseen;
        m_text = text;
        m_severity = severity;
    }
    showText();
    m_more->setText(m_unseen > 0 ? tr("(+%n more)", nullptr, m_unseen) : QString());
    applyColours();
    show();
}

void MessageBar::showText() {
    // A message is one line; a line break in it (a multi-line error) reads as a space here.
    QString line = m_text;
    line.replace(QLatin1Char('\n'), QLatin1Char(' '));
    const QFontMetrics fm(m_label->font());
    const int width = std::max(80, m_label->width());
    const QString shown = fm.elidedText(line, Qt::ElideMiddle, width);
    m_label->setText(shown);
    m_label->setToolTip(shown == line ? QString() : m_text);
}

void MessageBar::resizeEvent(QResizeEvent* event) {
    QFrame::resizeEvent(event);
    if (!m_text.isEmpty())
        showText();
}

QString MessageBar::text() const {
    return isHidden() ? QString() : m_text;  // shown, even in a window not on screen yet
}

void MessageBar::dismiss() {
    m_unseen = 0;
    hide();
}

void MessageBar::applyColours() {
    // Tinted from the palette's own base colour so that the bar reads in light and dark.
    const QColor tint = m_severity == MessageLog::Severity::Error     ? QColor(213, 94, 0)
                        : m_severity == MessageLog::Severity::Warning ? QColor(230, 159, 0)
                                                                      : QColor(86, 180, 233);
    QPalette p = palette();
    const QColor base = p.color(QPalette::Window);
    p.setColor(QPalette::Window, QColor::fromRgbF(0.8f * base.redF() + 0.2f * tint.redF(),
                                                  0.8f * base.greenF() + 0.2f * tint.greenF(),
                                                  0.8f * base.blueF() + 0.2f * tint.blueF()));
    setPalette(p);
}

}  // namespace reach
