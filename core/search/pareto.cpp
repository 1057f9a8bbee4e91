#include "search/pareto.h"

#include <algorithm>
#include <numeric>

namespace stagecraft {

bool dominates(const ParetoPoint& a, const ParetoPoint& b) {
    return a.x <= b.x && a.y >= b.y && (a.x < b.x || a.y > b.y);
}

std::vector<std::size_t> paretoFront(const std::vector<ParetoPoint>& points) {
    std::vector<std::size_t> order(points.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    // Sort by x, best y first, then index: a stable, total order, so ties resolve the same way
    // whatever order the points were computed in.
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (points[a].x != points[b].x) return points[a].x < points[b].x;
        if (points[a].y != points[b].y) return points[a].y > points[b].y;
        return a < b;
    });
    std::vector<std::size_t> front;
    bool any = false;
    double bestY = 0;
    for (const std::size_t i : order) {
        // Everything before has x <= this x; the point survives only with a strictly better y.
        if (!any || points[i].y > bestY) {
            front.push_back(i);
            bestY = points[i].y;
            any = true;
        }
    }
    return front;
}

} // namespace stagecraft
