let opened = 0;
if (window.api) window.api.onStatus(() => { opened++; });
document.getElementById('open').addEventListener('click', () => {
  if (window.api) window.api.open('/tmp/example.txt');
});
document.getElementById('site').addEventListener('click', () => {
  if (window.api) window.api.site();
});
