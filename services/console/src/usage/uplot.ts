/** uPlot and its stylesheet, in a chunk of their own that only the usage page loads. */
import UPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export default UPlot;
