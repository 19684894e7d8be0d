import { startTestService } from '../../helpers/test-service';
it('perf', async () => {
  const service = await startTestService({ CATALOGUE_CACHE_SECONDS: '0' });
  for (let i = 0; i < 3; i++) {
    let t = Date.now();
    const res = await service.request('/v2/technologies/');
    console.log('rest', Date.now() - t, res.text.length);
    t = Date.now();
    await service.running.services.catalogue.technologies();
    console.log('service', Date.now() - t);
  }
  await service.stop();
});
