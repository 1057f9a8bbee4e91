// The Scene renderer and the export formats: every file parses, has the scene's size, and shows
// what the scene holds.

#include "error.h"
#include "gui/chart_export.h"
#include "gui_test_support.h"
#include "render/scene_export.h"
#include "render/scene_painter.h"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace stagecraft;
using namespace stagecraft::gui;

namespace {

// A 200 x 100 pt scene: white background, one red bar, a line and a label.
Scene smallScene() {
    Scene s;
    s.width = 200;
    s.height = 100;
    s.fontFamily = "Helvetica, Arial, sans-serif";
    s.rects.push_back(
        {0, 0, 200, 100, Color{255, 255, 255, 255}, {}, 0, RectRole::Background, -1, -1, {}, {}});
    s.rects.push_back(
        {50, 25, 100, 50, Color{200, 0, 0, 255}, Color{0, 0, 0, 255}, 1, RectRole::Op, 0, 0, "F", "F0"});
    s.lines.push_back({0, 90, 200, 90, Color{0, 0, 0, 255}, 1, false});
    s.texts.push_back({100, 55, "F0", 10, Color{255, 255, 255, 255}, TextAnchor::Middle, true});
    return s;
}

} // namespace

class TestGuiRender : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { test::isolateSettings(); }

    void formatFromSuffix() {
        QCOMPARE(render::exportFormatForPath(QStringLiteral("a/b.SVG")), render::ExportFormat::Svg);
        QCOMPARE(render::exportFormatForPath(QStringLiteral("x.pdf")), render::ExportFormat::Pdf);
        QCOMPARE(render::exportFormatForPath(QStringLiteral("x.png")), render::ExportFormat::Png);
        QCOMPARE(render::exportFormatForPath(QStringLiteral("x.tex")), render::ExportFormat::Tikz);
        QVERIFY(!render::exportFormatForPath(QStringLiteral("x.bmp")));
    }

    void pngHasTheSizeOfTheDpiAndThePixels() {
        const Scene scene = smallScene();
        const QImage image = render::renderSceneImage(scene, 144);
        QCOMPARE(image.size(), QSize(400, 200));                   // 200 pt at 144 dpi = 400 px
        QCOMPARE(QColor(image.pixel(200, 70)), QColor(200, 0, 0)); // inside the bar, below the label
        QCOMPARE(QColor(image.pixel(20, 20)), QColor(Qt::white));
        // The label is drawn: white pixels inside the bar around its centre.
        int white = 0;
        for (int x = 180; x < 220; ++x)
            for (int y = 85; y < 112; ++y) white += QColor(image.pixel(x, y)) == QColor(Qt::white);
        QVERIFY(white > 10);
        QVERIFY_THROWS_EXCEPTION(ValidationError, render::renderSceneImage(scene, 5));
    }

    void everyFormatWritesAFileThatParses() {
        QTemporaryDir dir;
        const Scene scene = smallScene();
        // SVG: well-formed XML whose size is the scene's in points.
        const QString svg = dir.filePath(QStringLiteral("c.svg"));
        render::exportScene(scene, svg, {render::ExportFormat::Svg});
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&svgFile);
        bool sawRoot = false;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement() && xml.name() == QLatin1String("svg")) {
                sawRoot = true;
                QCOMPARE(xml.attributes().value(QLatin1String("viewBox")).toString(),
                         QStringLiteral("0 0 200 100"));
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(sawRoot);

        // PDF: a one-page PDF of 200 x 100 pt.
        const QString pdf = dir.filePath(QStringLiteral("c.pdf"));
        render::exportScene(scene, pdf, {render::ExportFormat::Pdf});
        QFile pdfFile(pdf);
        QVERIFY(pdfFile.open(QIODevice::ReadOnly));
        QVERIFY(pdfFile.read(5) == "%PDF-");
        const QString pdfinfo = QStandardPaths::findExecutable(QStringLiteral("pdfinfo"));
        if (!pdfinfo.isEmpty()) {
            QProcess p;
            p.start(pdfinfo, {pdf});
            QVERIFY(p.waitForFinished());
            const QString out = QString::fromUtf8(p.readAllStandardOutput());
            QVERIFY2(out.contains(QRegularExpression(QStringLiteral("Pages: +1\\n"))), qPrintable(out));
            QVERIFY2(out.contains(QStringLiteral("200 x 100 pts")), qPrintable(out));
        }

        // PNG at 100 dpi.
        const QString png = dir.filePath(QStringLiteral("c.png"));
        render::ExportSettings pngSettings{render::ExportFormat::Png};
        pngSettings.dpi = 100;
        render::exportScene(scene, png, pngSettings);
        QImage image;
        QVERIFY(image.load(png));
        QCOMPARE(image.size(), QSize(278, 139));

        // TikZ from core's writer: a standalone document.
        const QString tex = dir.filePath(QStringLiteral("c.tex"));
        render::exportScene(scene, tex, {render::ExportFormat::Tikz});
        QFile texFile(tex);
        QVERIFY(texFile.open(QIODevice::ReadOnly));
        const QByteArray texText = texFile.readAll();
        QVERIFY(texText.contains("\\begin{tikzpicture}"));
        QVERIFY(texText.contains("\\end{document}"));
    }

    void unwritablePathIsAnError() {
        try {
            render::exportScene(smallScene(), QStringLiteral("/nonexistent-dir/x.svg"),
                                {render::ExportFormat::Svg});
            QFAIL("no error");
        } catch (const Error& e) {
            QCOMPARE(QString::fromStdString(e.id()), QStringLiteral("io.write"));
        }
    }

    void chartExportChecksWidthAndEmptiness() {
        QTemporaryDir dir;
        ExportRequest request;
        request.path = dir.filePath(QStringLiteral("x.svg"));
        try {
            exportChart(AnalysisResult{}, request);
            QFAIL("no error");
        } catch (const ValidationError& e) {
            QCOMPARE(QString::fromStdString(e.id()), QStringLiteral("export.empty"));
        }
        AnalysisRequest analysis;
        analysis.project = defaultProject();
        const AnalysisResult result = analyze(analysis);
        request.widthPt = 10;
        QVERIFY_THROWS_EXCEPTION(ValidationError, exportChart(result, request));
        request.widthPt = toPoints(170, SizeUnit::Millimetre);
        QCOMPARE(qRound(request.widthPt), 482);
        exportChart(result, request);
        QVERIFY(QFile::exists(request.path));
    }

    void screenRectsSnapToWholePixels() {
        // A stroked bar at fractional points, painted at 2 px per point: its border is the pixel
        // columns and rows its edges fall in, its inside the fill, and nothing is blended.
        Scene s;
        s.width = 50;
        s.height = 25;
        const Color red{200, 0, 0, 255}, black{0, 0, 0, 255}, blue{0, 0, 200, 255};
        s.rects.push_back({10.3, 10.6, 20.2, 8.4, red, black, 0.5, RectRole::Op, 0, 0, {}, {}});
        s.rects.push_back({2.7, 2.2, 1.85, 3.1, blue, {}, 0, RectRole::Op, 1, 0, {}, {}}); // no stroke
        auto paint = [&](bool snap) {
            QImage image(100, 50, QImage::Format_RGB32);
            image.fill(Qt::white);
            QPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            painter.scale(2, 2);
            render::paintScene(painter, s, nullptr, render::PaintOptions{snap});
            return image;
        };
        const QImage snapped = paint(true);
        // Device rect of the bar: x 20.6 .. 61, y 21.2 .. 38: border columns 20 and 61, rows 21, 38.
        for (int y = 0; y < 50; ++y)
            for (int x = 0; x < 100; ++x) {
                const QColor c = snapped.pixelColor(x, y);
                QColor expected = Qt::white;
                if (x >= 20 && x <= 61 && y >= 21 && y <= 38)
                    expected =
                        (x == 20 || x == 61 || y == 21 || y == 38) ? QColor(0, 0, 0) : QColor(200, 0, 0);
                // The unstroked rect: x 5.4 .. 9.1 -> columns 5..8, y 4.4 .. 10.6 -> rows 4..10.
                if (x >= 5 && x < 9 && y >= 4 && y < 11) expected = QColor(0, 0, 200);
                if (c != expected)
                    QFAIL(qPrintable(QStringLiteral("pixel %1,%2 is %3, expected %4")
                                         .arg(x)
                                         .arg(y)
                                         .arg(c.name(), expected.name())));
            }
        // Exports keep exact, antialiased geometry: the same scene blends its edges.
        const QImage exact = paint(false);
        QVERIFY(exact.pixelColor(20, 30) != QColor(0, 0, 0) && exact.pixelColor(20, 30) != QColor(Qt::white));
    }

    void penAndBrushFollowEveryRect() {
        // Styles alternate rect by rect; the renderer sets pen and brush only on a change, so
        // every rect must still get its own: fill only, fill and stroke, stroke only.
        Scene s;
        s.width = 120;
        s.height = 20;
        const Color red{200, 0, 0, 255}, green{0, 160, 0, 255}, black{0, 0, 0, 255}, none{0, 0, 0, 0};
        for (int i = 0; i < 6; ++i) {
            const double x = 20.0 * i;
            switch (i % 3) {
            case 0:
                s.rects.push_back({x + 2, 2, 16, 16, red, {}, 0, RectRole::Op, i, 0, {}, {}});
                break;
            case 1:
                s.rects.push_back({x + 2, 2, 16, 16, green, black, 2, RectRole::Op, i, 0, {}, {}});
                break;
            case 2:
                s.rects.push_back({x + 2, 2, 16, 16, none, black, 2, RectRole::Op, i, 0, {}, {}});
                break;
            }
        }
        QImage image(120, 20, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        render::paintScene(painter, s);
        painter.end();
        for (int i = 0; i < 6; ++i) {
            const int x = 20 * i;
            const QColor centre = image.pixelColor(x + 10, 10), edge = image.pixelColor(x + 2, 10);
            switch (i % 3) {
            case 0:
                QCOMPARE(centre, QColor(200, 0, 0));
                QCOMPARE(edge, QColor(200, 0, 0));
                break;
            case 1:
                QCOMPARE(centre, QColor(0, 160, 0));
                QCOMPARE(edge, QColor(0, 0, 0));
                break;
            case 2:
                QCOMPARE(centre, QColor(Qt::white));
                QCOMPARE(edge, QColor(0, 0, 0));
                break;
            }
        }
    }

    void sceneColorsAndFonts() {
        QCOMPARE(render::sceneColor(Color{1, 2, 3, 4}), QColor(1, 2, 3, 4));
        const QFont font = render::sceneFont("Helvetica, \"Liberation Sans\", sans-serif");
        QCOMPARE(font.families(),
                 (QStringList{QStringLiteral("Helvetica"), QStringLiteral("Liberation Sans")}));
        QCOMPARE(font.styleHint(), QFont::SansSerif);
    }
};

QTEST_MAIN(TestGuiRender)
#include "tst_gui_render.moc"
