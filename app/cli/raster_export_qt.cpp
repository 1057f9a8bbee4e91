#include "raster_export.h"
#include "render/raster_chart.h"

namespace stagecraft::cli {

bool rasterExportAvailable() {
    return true;
}

void writeRasterChart(const Scene& scene, const std::string& path, double dpi) {
    render::writeRasterChart(scene, path, dpi);
}

} // namespace stagecraft::cli
