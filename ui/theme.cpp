#include "ui/theme.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>
#include <algorithm>
#include <cmath>

namespace reach {

Theme::Mode Theme::s_mode = Theme::Mode::Light;

QColor Theme::categoryColor(Category c) {
    // Okabe-Ito: blue, vermillion, yellow, grey-ish purple. Addressable gets the warm, most
    // salient colour because it is the number the whole tool is about.
    switch (c) {
        case Category::LibraryOptimized:
            return QColor(0x00, 0x72, 0xB2);  // blue
        case Category::Addressable:
            return QColor(0xD5, 0x5E, 0x00);  // vermillion
        case Category::Overhead:
            return QColor(0xE6, 0x9F, 0x00);  // orange
        case Category::Unclassified:
            return QColor(0xCC, 0x79, 0xA7);  // reddish purple
    }
    return Qt::gray;
}

QColor Theme::unsplitColor() {
    return QColor(0xBB, 0xBB, 0xBB);
}

namespace {

// WCAG 2 relative luminance of an sRGB colour.
double relativeLuminance(const QColor& c) {
    auto linear = [](double v) {
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
}

}  // namespace

double Theme::contrastRatio(const QColor& a, const QColor& b) {
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor Theme::textOn(const QColor& fill) {
    // A luma cut at 0.6 put white on the vermillion and purple bars (3.9:1 and 3.1:1).
    return contrastRatio(Qt::black, fill) >= contrastRatio(Qt::white, fill) ? QColor(Qt::black)
                                                                            : QColor(Qt::white);
}

QColor Theme::seriesColor(int index) {
    static const QColor colors[] = {QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00),
                                    QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7),
                                    QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9),
                                    QColor(0xF0, 0xE4, 0x42), QColor(0x00, 0x00, 0x00)};
    return colors[((index % 8) + 8) % 8];
}

Theme::Mode Theme::mode() {
    return s_mode;
}

void Theme::apply(QApplication& app, Mode mode) {
    s_mode = mode;
    app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (mode == Mode::Light) {
        app.setPalette(app.style()->standardPalette());
        return;
    }
    QPalette p;
    const QColor window(0x2b, 0x2b, 0x2e), base(0x1f, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(0x56, 0xB4, 0xE9));
    p.setColor(QPalette::Highlight, QColor(0x00, 0x72, 0xB2));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
    app.setPalette(p);
}

QFont Theme::plotFont(int pointSize) {
    // DejaVu Sans ships with Debian and renders identically offscreen, which keeps the QtTest
    // snapshots deterministic.
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPointSize(pointSize);
    return f;
}

QColor Theme::plotBackground() {
    return s_mode == Mode::Dark ? QColor(0x1f, 0x1f, 0x22) : QColor(Qt::white);
}

void Theme::stylePlot(QCustomPlot* plot) {
    const bool dark = s_mode == Mode::Dark;
    const QColor fg = dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20);
    const QColor grid = dark ? QColor(0x48, 0x48, 0x4c) : QColor(0xe3, 0xe3, 0xe3);
    plot->setBackground(plotBackground());
    plot->setNoAntialiasingOnDrag(true);
    plot->setPlottingHints(QCP::phCacheLabels | QCP::phFastPolylines);
    for (QCPAxisRect* rect : plot->axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            axis->setBasePen(QPen(fg, 1));
            axis->setTickPen(QPen(fg, 1));
            axis->setSubTickPen(QPen(fg, 1));
            axis->setTickLabelColor(fg);
            axis->setLabelColor(fg);
            axis->setTickLabelFont(plotFont(9));
            axis->setLabelFont(plotFont(9));
            axis->grid()->setPen(QPen(grid, 1, Qt::SolidLine));
            axis->grid()->setSubGridVisible(false);
            axis->grid()->setZeroLinePen(Qt::NoPen);
        }
    }
    if (plot->legend) {
        plot->legend->setFont(plotFont(8));
        plot->legend->setTextColor(fg);
        plot->legend->setBrush(dark ? QColor(0x1f, 0x1f, 0x22, 220) : QColor(255, 255, 255, 220));
        plot->legend->setBorderPen(Qt::NoPen);
    }
}

}  // namespace reach
