/* PCD writer: the header PCL's io::savePCDFile writes, then the points in blocks. */
#include "pcd.h"

#include "pointio.h"

int pcd_write(FILE *out, const pcd_cloud *cloud)
{
    const int color = cloud->colors != NULL;
    const int organized = cloud->width && cloud->height;
    fprintf(out,
            "# .PCD v0.7 - Point Cloud Data file format (written by clcompute)\n"
            "VERSION 0.7\nFIELDS x y z%s\nSIZE 4 4 4%s\nTYPE F F F%s\nCOUNT 1 1 1%s\n"
            "WIDTH %zu\nHEIGHT %zu\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS %zu\nDATA %s\n",
            color ? " rgb" : "", color ? " 4" : "", color ? " F" : "", color ? " 1" : "",
            organized ? cloud->width : cloud->count, organized ? cloud->height : (size_t)1,
            cloud->count, cloud->ascii ? "ascii" : "binary");
    if (cloud->ascii)
        return points_write_ascii(out, cloud->points, cloud->colors, cloud->count,
                                  POINTS_COLOR_PCL_RGB);
    return points_write_binary(out, cloud->points, cloud->colors, cloud->count,
                               POINTS_COLOR_PCL_RGB);
}
