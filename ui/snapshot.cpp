#include "ui/snapshot.h"

#include <qcustomplot.h>

#include <QDir>
#include <QEventLoop>
#include <QTabWidget>
#include <QTimer>

#include "ui/mainwindow.h"
#include "ui/session.h"

namespace reach {

bool waitUntilIdle(MainWindow& window, int timeoutMs) {
    Session* session = window.session();
    if (!session->isBusy())
        return true;
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    QObject::connect(session, &Session::idle, &loop, &QEventLoop::quit);
    timer.start(timeoutMs);
    loop.exec();
    // A load can trigger a re-classification right as it ends: wait for that one too.
    return !session->isBusy() || waitUntilIdle(window, std::max(0, timer.remainingTime()));
}

bool writeSnapshots(MainWindow& window, const QString& dir, const QSize& size, QStringList* written,
                    QString* error, int timeoutMs) {
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = QObject::tr("%1: cannot create the directory").arg(dir);
        return false;
    }
    if (!waitUntilIdle(window, timeoutMs)) {
        if (error)
            *error = QObject::tr("background jobs still running after %1 s").arg(timeoutMs / 1000);
        return false;
    }
    QTabWidget* tabs = window.tabs();
    for (const MainWindow::View& view : window.views()) {
        // Render the view on its own at the requested size: take it out of the tab widget so
        // the window's layout cannot resize it, then put it back where it was.
        const int index = tabs->indexOf(view.widget);
        tabs->removeTab(index);
        view.widget->setParent(nullptr);
        view.widget->resize(size);
        view.widget->show();
        QCoreApplication::processEvents();
        for (QCustomPlot* plot : view.widget->findChildren<QCustomPlot*>())
            plot->replot(QCustomPlot::rpImmediateRefresh);
        const QPixmap pixmap = view.widget->grab(QRect(QPoint(0, 0), size));
        view.widget->hide();
        tabs->insertTab(index, view.widget, view.title);
        const QString path = QDir(dir).filePath(view.key + QStringLiteral(".png"));
        if (!pixmap.save(path, "PNG")) {
            if (error)
                *error = QObject::tr("%1: cannot write").arg(path);
            return false;
        }
        if (written)
            *written << path;
    }
    return true;
}

}  // namespace reach
